import { describe, expect, it } from 'vitest'
import { createSpeechFilter } from './speech-filter.js'

describe('speech filters', () => {
  const markdown = [
    ['**重要**的事情', '重要的事情'],
    ['这是*强调*，_斜体_。', '这是强调，斜体。'],
    ['__粗体__说完。', '粗体说完。'],
    ['运行 `npm test` 即可。', '运行 npm test 即可。'],
    ['## 小标题', '小标题'],
    ['- 第一项', '第一项'],
    ['* 第二项', '第二项'],
    ['> 引用的话。', '引用的话。'],
    ['看[这里](https://example.com/x)。', '看这里。'],
    ['![图片说明](a.png)', '图片说明'],
    ['1. 第一步', '1. 第一步'],
    ['2 * 3 = 6', '2 * 3 = 6'],
    ['snake_case_name 不变', 'snake_case_name 不变'],
    ['---', ''],
  ] as const
  for (const [input, spoken] of markdown) {
    it(`markdown: ${JSON.stringify(input)} → ${JSON.stringify(spoken)}`, () => {
      expect(createSpeechFilter(['markdown']).filter(input)).toBe(spoken)
    })
  }

  it('markdown: a code block is not spoken, also when it spans several sentences', () => {
    const filter = createSpeechFilter(['markdown'])
    const spoken = ['代码如下：', '```js', 'const a = 1;', 'call(a);', '```', '就这样。'].map((s) =>
      filter.filter(s),
    )
    expect(spoken).toEqual(['代码如下：', '', '', '', '', '就这样。'])
  })

  it('emoji: pictographs, skin tones, joiners and flags are removed', () => {
    expect(createSpeechFilter(['emoji']).filter('好开心😊！👍🏽👨‍👩‍👧🇨🇳 ❤️耶')).toBe('好开心！ 耶')
  })

  it('stage directions: *…* and （…）/(…) are removed, **bold** is not a stage direction', () => {
    const filter = createSpeechFilter(['stage_directions', 'markdown'])
    expect(filter.filter('*挥挥手* 你好（笑）！(smiles) **真的**')).toBe('你好！ 真的')
  })

  it('no filters: only trimmed', () => {
    expect(createSpeechFilter([]).filter(' **x** 😊 ')).toBe('**x** 😊')
  })
})
