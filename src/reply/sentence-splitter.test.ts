import { describe, expect, it } from 'vitest'
import {
  createSentenceSplitter,
  type SentenceSplitterOptions,
  type SplitSentence,
} from './sentence-splitter.js'

function split(text: string, options: Omit<SentenceSplitterOptions, 'onSentence'> = {}): string[] {
  const sentences: SplitSentence[] = []
  const splitter = createSentenceSplitter({ ...options, onSentence: (sentence) => sentences.push(sentence) })
  splitter.write(text)
  splitter.end()
  return sentences.map((sentence) => sentence.text)
}

describe('sentence splitter rules', () => {
  const cases: [string, string, string[]][] = [
    [
      'a URL ending a sentence',
      'See https://a.com/x?y=1. Then go!',
      ['See https://a.com/x?y=1.', 'Then go!'],
    ],
    ['a URL before CJK', '打开https://a.com/b?c=d看看。好。', ['打开https://a.com/b?c=d看看。', '好。']],
    ['a decimal at the end', 'Pi is 3.14. Yes.', ['Pi is 3.14.', 'Yes.']],
    ['an ellipsis at the very end', 'Well...', ['Well...']],
    ['two dots', 'Hmm.. ok.', ['Hmm.. ok.']],
    ['a list marker after a newline', '步骤：\n1. 打开\n2. 关闭', ['步骤：', '1. 打开', '2. 关闭']],
    ['a.m. and p.m.', 'Meet at 9 a.m. tomorrow. Bye.', ['Meet at 9 a.m. tomorrow.', 'Bye.']],
    [
      'Mrs. and St.',
      'Mrs. Lee lives on Main St. near here. OK.',
      ['Mrs. Lee lives on Main St. near here.', 'OK.'],
    ],
    ['closing brackets and tildes', '（好！）～走。', ['（好！）～', '走。']],
    ['full-width ellipsis after a terminator', '是吗？…算了。', ['是吗？…', '算了。']],
    ['an apostrophe is not a quote', "It's fine. Don't worry.", ["It's fine.", "Don't worry."]],
    ['a CRLF line break', '一\r\n二', ['一', '二']],
    ['semicolons', 'a; b; c', ['a;', 'b;', 'c']],
    ['a dot followed by a letter', 'file.txt is here. Ok', ['file.txt is here.', 'Ok']],
  ]
  for (const [name, text, expected] of cases) {
    it(`${name}: ${JSON.stringify(text)}`, () => {
      expect(split(text)).toEqual(expected)
    })
  }

  it('first_clause_chars applies to the first sentence only and not inside 1,000', () => {
    expect(split('价格是1,000元，很便宜，真的，好。再说，一遍。', { firstClauseChars: 4 })).toEqual([
      '价格是1,000元，',
      '很便宜，真的，好。',
      '再说，一遍。',
    ])
  })

  it('min_chars merges a short last line into nothing: it is flushed at the end', () => {
    expect(split('很长的一句话。好', { minChars: 3 })).toEqual(['很长的一句话。', '好'])
  })

  it('counts code points, not UTF-16 units', () => {
    expect(split('😊😊😊😊，😊😊。', { maxChars: 5 })).toEqual(['😊😊😊😊，', '😊😊。'])
  })

  it('an emotion set before a sentence starts belongs to it; set mid-sentence, to the next', () => {
    const sentences: SplitSentence[] = []
    const splitter = createSentenceSplitter({ onSentence: (sentence) => sentences.push(sentence) })
    splitter.setEmotion('开心')
    splitter.write('一。二')
    splitter.setEmotion('难过')
    splitter.write('三。四。')
    splitter.end()
    expect(sentences).toEqual([
      { text: '一。', emotion: '开心' },
      { text: '二三。', emotion: '开心' },
      { text: '四。', emotion: '难过' },
    ])
  })

  it('an emotion mark survives a max_chars cut before it', () => {
    const sentences: SplitSentence[] = []
    const splitter = createSentenceSplitter({
      maxChars: 6,
      onSentence: (sentence) => sentences.push(sentence),
    })
    splitter.write('一二三，四')
    splitter.setEmotion('难过')
    splitter.write('五六七。八。')
    splitter.end()
    expect(sentences).toEqual([
      { text: '一二三，', emotion: undefined },
      { text: '四五六七。', emotion: undefined },
      { text: '八。', emotion: '难过' },
    ])
  })
})
