import { describe, expect, it } from 'vitest'
import { createReplyParser } from './create-reply-parser.js'
import { createTestOptions, type LogLine, runReply, splitEveryUnit } from './reply-test-helpers.js'
import { QUOTE_HOLD_LIMIT } from './sentence-splitter.js'
import type { ReplyEvent } from './types.js'

const codePoints = (text: string) => [...text].length
const sentenceTexts = (events: ReplyEvent[]) =>
  events.flatMap((event) => (event.type === 'sentence' ? [event.text] : []))

describe('reply parser edge cases', () => {
  it('an empty reply ends with the default emotion and empty text', () => {
    for (const format of ['json', 'prefix', 'auto', 'plain'] as const) {
      const logs: LogLine[] = []
      const run = runReply(['', ''], createTestOptions(format, {}, logs))
      expect(run.structure).toEqual([
        { type: 'emotion', emotion: '平静' },
        { type: 'done', text: '', emotion: '平静' },
      ])
      expect(run.display).toBe('')
      expect(logs).toEqual([])
    }
  })

  it('a reply of only whitespace has no sentence and keeps its display text', () => {
    for (const format of ['json', 'prefix', 'auto', 'plain'] as const) {
      const run = runReply([' \n', '\t  '], createTestOptions(format))
      expect(run.sentences).toEqual([])
      expect(run.done).toEqual({ text: ' \n\t  ', emotion: '平静' })
    }
  })

  it('JSON with no text field gives the emotion and no text', () => {
    const run = runReply(['{"emotion":"害羞"}'], createTestOptions('json'))
    expect(run.structure).toEqual([
      { type: 'emotion', emotion: '害羞' },
      { type: 'done', text: '', emotion: '害羞' },
    ])
  })

  it('nested braces in a prefix JSON do not end it early', () => {
    const text = '{"emotion":"开心","meta":{"a":{"b":[1,"}",{"c":"\\"}"}]}},"n":-1.5e3}\n好的。'
    for (const chunks of [[text], splitEveryUnit(text)]) {
      const run = runReply(chunks, createTestOptions('prefix'))
      expect(run.display).toBe('好的。')
      expect(run.sentences).toEqual([['好的。', '开心']])
    }
  })

  it('an inline tag mid-sentence changes the emotion from the next sentence on', () => {
    const run = runReply(
      ['我今天[开', '心]很高兴。然后呢。'],
      createTestOptions('plain', { inline_emotion_tags: true }),
    )
    expect(run.display).toBe('我今天很高兴。然后呢。')
    expect(run.structure).toEqual([
      { type: 'emotion', emotion: '平静' },
      { type: 'sentence', index: 0, text: '我今天很高兴。', emotion: '平静' },
      { type: 'emotion', emotion: '开心' },
      { type: 'sentence', index: 1, text: '然后呢。', emotion: '开心' },
      { type: 'done', text: '我今天很高兴。然后呢。', emotion: '开心' },
    ])
  })

  it('an alias inside a tag is mapped and a tag at the end still sets the final emotion', () => {
    const run = runReply(
      ['[happy]你好！<|ACT {"emotion":"sad"}|>'],
      createTestOptions('auto', { inline_emotion_tags: true }),
    )
    expect(run.sentences).toEqual([['你好！', '开心']])
    expect(run.emotions).toEqual(['开心', '难过'])
    expect(run.done).toEqual({ text: '你好！', emotion: '难过' })
  })

  it('a long sentence without terminator is cut at commas by max_chars, each piece within the limit', () => {
    const text = `${'这是一个很长的从句，'.repeat(30)}最后`
    const run = runReply(splitEveryUnit(text), createTestOptions('plain', { max_chars: 24 }))
    expect(run.sentences.length).toBeGreaterThan(10)
    for (const [sentence] of run.sentences) expect(codePoints(sentence)).toBeLessThanOrEqual(24)
    expect(run.sentences.map(([sentence]) => sentence).join('')).toBe(text)
  })

  it('a long sentence with neither terminator nor comma stays whole', () => {
    const text = '啊'.repeat(5000)
    const run = runReply(splitEveryUnit(text), createTestOptions('plain', { max_chars: 50 }))
    expect(run.sentences).toEqual([[text, '平静']])
  })

  it('with max_chars, a comma past the limit cuts when none is within it', () => {
    const run = runReply(['一二三四五六七八九十，十一十二。'], createTestOptions('plain', { max_chars: 5 }))
    expect(run.sentences.map(([sentence]) => sentence)).toEqual(['一二三四五六七八九十，', '十一十二。'])
  })

  it(`an open quote holds cuts for at most ${QUOTE_HOLD_LIMIT} characters when max_chars is off`, () => {
    const text = `他说：“${'这是一句话。'.repeat(60)}`
    const run = runReply([text], createTestOptions('plain'))
    const sentences = run.sentences.map(([sentence]) => sentence)
    expect(sentences.length).toBeGreaterThan(1)
    expect(codePoints(sentences[0]!)).toBeLessThanOrEqual(QUOTE_HOLD_LIMIT)
    expect(codePoints(sentences[0]!)).toBeGreaterThan(QUOTE_HOLD_LIMIT - 7)
    expect(sentences[0]!.endsWith('。')).toBe(true)
    expect(sentences.join('')).toBe(text)
    expect(runReply(splitEveryUnit(text), createTestOptions('plain')).structure).toEqual(run.structure)
  })

  it('an open quote holds cuts only up to max_chars when it is set', () => {
    const text = `“${'好的。'.repeat(20)}”走吧。`
    const sentences = runReply([text], createTestOptions('plain', { max_chars: 10 })).sentences.map(
      ([s]) => s,
    )
    expect(sentences[0]).toBe('“好的。好的。好的。')
    expect(sentences.join('')).toBe(text)
  })

  it('a closed quote shorter than the limit keeps its terminators inside', () => {
    const sentences = runReply(['他问：“你来吗？我等你。”我说好。'], createTestOptions('plain')).sentences
    expect(sentences.map(([sentence]) => sentence)).toEqual(['他问：“你来吗？我等你。”', '我说好。'])
  })

  it('"text" before "emotion": display flows at once, sentences wait for the emotion', () => {
    const parser = createReplyParser(createTestOptions('json'))
    const first = parser.push('{"text":"你好。再见。')
    expect(first).toEqual([{ type: 'display-delta', text: '你好。再见。' }])
    const second = parser.push('","emotion":"难过"}')
    expect(second).toEqual([
      { type: 'emotion', emotion: '难过' },
      { type: 'sentence', index: 0, text: '你好。', emotion: '难过' },
      { type: 'sentence', index: 1, text: '再见。', emotion: '难过' },
    ])
    expect(parser.end()).toEqual([{ type: 'done', text: '你好。再见。', emotion: '难过' }])
  })

  it('"text" without any "emotion" uses the default when the JSON closes', () => {
    const parser = createReplyParser(createTestOptions('json'))
    expect(sentenceTexts(parser.push('{"text":"一。二。'))).toEqual([])
    expect(sentenceTexts(parser.push('"}'))).toEqual(['一。', '二。'])
    expect(parser.emotion).toBe('平静')
  })

  it('decodes every JSON escape, also when split across chunks', () => {
    const text = JSON.stringify({ emotion: '开心', text: 'a"b\\c/d\te\u00e9\u4f60😊\b\f\r\n' })
      .replace('é', '\\u00e9')
      .replace('/', '\\/')
    const whole = runReply([text], createTestOptions('json'))
    // \b, \f and \r decode to control characters, which never reach clients.
    expect(whole.display).toBe('a"b\\c/d\te\u00e9\u4f60😊\n')
    expect(runReply(splitEveryUnit(text), createTestOptions('json')).display).toBe(whole.display)
  })

  it('a lone surrogate escape becomes U+FFFD instead of a broken string', () => {
    const run = runReply(['{"emotion":"开心","text":"a\\ud83db\\ude0a"}'], createTestOptions('json'))
    expect(run.display).toBe('a\uFFFDb\uFFFD')
  })

  it('an unknown emotion label becomes the default emotion and is logged once', () => {
    const logs: LogLine[] = []
    const options = createTestOptions('plain', { inline_emotion_tags: true }, logs)
    const run = runReply(['<|ACT {"emotion":"excited"}|>哇！<|ACT {"emotion":"excited"}|>哇！'], options)
    expect(run.sentences).toEqual([
      ['哇！', '平静'],
      ['哇！', '平静'],
    ])
    expect(logs.filter((line) => line.message.includes('excited'))).toHaveLength(1)
    const json = runReply(['{"emotion":"Excited","text":"好"}'], createTestOptions('json', {}, logs))
    expect(json.done?.emotion).toBe('平静')
    const html = runReply(
      ['{"emotion":"<img src=x onerror=alert(1)>","text":"好"}'],
      createTestOptions('json'),
    )
    expect(html.done?.emotion).toBe('平静')
  })

  it('strips control and bidi-override characters from display text and sentences, however written', () => {
    const raw = '{"emotion":"开心","text":"你好\u001b[31m红\u202e字\u0007。"}'
    const escaped = '{"emotion":"开心","text":"你好\\u001b[31m红\\u202E字\\u0007。"}'
    for (const chunks of [[raw], [...raw], [escaped], [...escaped]]) {
      const run = runReply(chunks, createTestOptions('json'))
      expect(run.display).toBe('你好[31m红字。')
      expect(run.sentences).toEqual([['你好[31m红字。', '开心']])
    }
    const plain = runReply(['行一\r\n\u2066行二\u009b2J。\t好'], createTestOptions('plain'))
    expect(plain.display).toBe('行一\n行二2J。\t好')
  })

  it('upper-case aliases are found', () => {
    expect(runReply(['{"emotion":"Happy","text":"好"}'], createTestOptions('json')).done?.emotion).toBe(
      '开心',
    )
  })

  it('a code-fenced JSON reply is unwrapped; text after the JSON is kept', () => {
    const run = runReply(['```json\n{"emotion":"开心","text":"好。"}\n```'], createTestOptions('auto'))
    expect(run.display).toBe('好。')
    const extra = runReply(['{"emotion":"开心","text":"好。"}\n还有。'], createTestOptions('json'))
    expect(extra.sentences).toEqual([
      ['好。', '开心'],
      ['还有。', '开心'],
    ])
  })

  it('a broken JSON envelope in auto mode falls back to plain text at DEBUG', () => {
    const logs: LogLine[] = []
    const run = runReply(['{"emotion" "开心"} 你好。'], createTestOptions('auto', {}, logs))
    expect(run.display).toBe('{"emotion" "开心"} 你好。')
    expect(run.done?.emotion).toBe('平静')
    expect(logs.map((line) => line.level)).toEqual(['debug'])
  })

  it('a reply cut off inside the envelope keeps what it has', () => {
    const emotionOnly = runReply(['{"emotion":"开心",'], createTestOptions('json'))
    expect(emotionOnly.done).toEqual({ text: '', emotion: '开心' })
    const logs: LogLine[] = []
    const nothing = runReply(['{"emo'], createTestOptions('json', {}, logs))
    expect(nothing.done).toEqual({ text: '{"emo', emotion: '平静' })
    expect(logs.map((line) => line.level)).toEqual(['warn'])
  })

  it('push after end is an error that says so; a second end is harmless', () => {
    const parser = createReplyParser()
    parser.end()
    expect(parser.end()).toEqual([])
    expect(() => parser.push('x')).toThrow(/after end/)
  })

  it('bad options are rejected with a clear message', () => {
    expect(() => createReplyParser({ replyFormat: 'xml' as never })).toThrow(/replyFormat "xml"/)
    expect(() => createReplyParser({ maxChars: -1 })).toThrow(/maxChars/)
  })

  it('displayText and emotion follow the stream', () => {
    const parser = createReplyParser(createTestOptions('json'))
    parser.push('{"emotion":"生气","text":"哼')
    expect(parser.displayText).toBe('哼')
    expect(parser.emotion).toBe('生气')
  })

  it('a sentence whose terminator ends a chunk is released with that chunk', () => {
    const parser = createReplyParser(createTestOptions('plain'))
    expect(sentenceTexts(parser.push('你好。'))).toEqual(['你好。'])
    // What may still belong to a sentence leads the next one instead; nothing is lost or repeated.
    expect(sentenceTexts(parser.push('」！我们走吧'))).toEqual([])
    expect(sentenceTexts(parser.end())).toEqual(['」！我们走吧'])
  })

  it('early release waits where the end is not certain: a dot, an open quote, a URL', () => {
    for (const [chunks, first] of [
      [['价格是3.', '14元。'], '价格是3.14元。'],
      [['他说「好的。', '」然后走了。'], '他说「好的。」'],
      [['看https://a.com/x?', 'q=1 好。'], '看https://a.com/x?q=1 好。'],
    ] as const) {
      const run = runReply(chunks, createTestOptions('plain'))
      expect(run.sentences[0]?.[0]).toBe(first)
    }
  })

  it('early release off: the sentence waits for the next character', () => {
    const parser = createReplyParser(createTestOptions('plain', { early_release: false }))
    expect(sentenceTexts(parser.push('你好。'))).toEqual([])
    expect(sentenceTexts(parser.push('」我们走吧'))).toEqual(['你好。」'])
  })
})
