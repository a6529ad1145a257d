/**
 * The parsing Scenarios of the design seeds (000: LLM Pipeline, 001: OpenClaw LLM Pipeline), one
 * table row each, named after the Scenario.
 */
import { describe, expect, it } from 'vitest'
import { createReplyParser } from './create-reply-parser.js'
import { createTestOptions, type LogLine, type ReplyRun, runReply } from './reply-test-helpers.js'
import type { ReplyEvent } from './types.js'

interface ScenarioRow {
  scenario: string
  format: 'json' | 'prefix' | 'auto' | 'plain'
  chunks: string[]
  check: (run: ReplyRun, logs: LogLine[]) => void
}

const rows: ScenarioRow[] = [
  {
    scenario: '000 句子边界切割: 。！？\\n end a sentence and publish it',
    format: 'plain',
    chunks: ['第一句。第二', '句！第三句？第', '四句\n第五句'],
    check: (run) =>
      expect(run.sentences.map(([text]) => text)).toEqual([
        '第一句。',
        '第二句！',
        '第三句？',
        '第四句',
        '第五句',
      ]),
  },
  {
    scenario: '000 正常 JSON 解析: emotion and text are taken from the JSON',
    format: 'json',
    chunks: ['{"emotion": "开心", "text": "你好呀～"}'],
    check: (run) => {
      expect(run.done).toEqual({ text: '你好呀～', emotion: '开心' })
      expect(run.emotions).toEqual(['开心'])
      expect(run.sentences).toEqual([['你好呀～', '开心']])
    },
  },
  {
    scenario: '000 JSON 解析失败 Fallback: the whole output is the text, emotion 平静, a warning',
    format: 'json',
    chunks: ['好的，', '我明白了。'],
    check: (run, logs) => {
      expect(run.done).toEqual({ text: '好的，我明白了。', emotion: '平静' })
      expect(run.sentences).toEqual([['好的，我明白了。', '平静']])
      expect(logs.map((line) => line.level)).toEqual(['warn'])
    },
  },
  {
    scenario: '001 SSE chunk 解析: content deltas accumulate into the text buffer',
    format: 'plain',
    chunks: ['你', '好', '呀', '。'],
    check: (run) => {
      expect(run.display).toBe('你好呀。')
      expect(run.sentences).toEqual([['你好呀。', '平静']])
    },
  },
  {
    scenario: '001 正常情感 JSON 解析: the emotion is read when the first } arrives; the rest is sentences',
    format: 'prefix',
    chunks: ['{"emotion":', ' "开心"', '}', '今天真好。', '我们走吧！'],
    check: (run) => {
      expect(run.emotions).toEqual(['开心'])
      expect(run.sentences).toEqual([
        ['今天真好。', '开心'],
        ['我们走吧！', '开心'],
      ])
      expect(run.display).toBe('今天真好。我们走吧！')
    },
  },
  {
    scenario:
      '001 情感 JSON 解析失败 Fallback: emotion 平静, everything buffered goes to sentences, DEBUG log',
    format: 'prefix',
    chunks: ['{emotion: 开心}', '你好。'],
    check: (run, logs) => {
      expect(run.done).toEqual({ text: '{emotion: 开心}你好。', emotion: '平静' })
      expect(run.sentences).toEqual([['{emotion: 开心}你好。', '平静']])
      expect(logs.map((line) => line.level)).toEqual(['debug'])
    },
  },
  {
    scenario: '001 OpenClaw 未配置情感格式时的 Fallback: no emotion prefix means plain text with 平静',
    format: 'prefix',
    chunks: ['今天天气不错。', '出去走走？'],
    check: (run, logs) => {
      expect(run.sentences).toEqual([
        ['今天天气不错。', '平静'],
        ['出去走走？', '平静'],
      ])
      expect(logs).toEqual([])
    },
  },
  {
    scenario: '001 实时句子切割: a sentence is published trimmed, with the emotion',
    format: 'prefix',
    chunks: ['{"emotion":"难过"}', '  唉，算了吧。  ', '\n  明天再说。'],
    check: (run) =>
      expect(run.sentences).toEqual([
        ['唉，算了吧。', '难过'],
        ['明天再说。', '难过'],
      ]),
  },
  {
    scenario: '001 流结束时处理剩余文本: what is left when the stream ends is the last sentence',
    format: 'auto',
    chunks: ['好的。然后', '还有一件事'],
    check: (run) => expect(run.sentences.map(([text]) => text)).toEqual(['好的。', '然后还有一件事']),
  },
  {
    scenario: '001 流结束后发布 LLM_DONE: done comes once, after every sentence',
    format: 'auto',
    chunks: ['{"emotion":"惊讶","text":"真的？', '太好了！"}'],
    check: (run) => {
      expect(run.events.filter((event) => event.type === 'done')).toHaveLength(1)
      expect(run.events.at(-1)).toEqual({ type: 'done', text: '真的？太好了！', emotion: '惊讶' })
      expect(run.sentences).toHaveLength(2)
    },
  },
]

describe('seed Scenarios about reply parsing', () => {
  for (const row of rows) {
    it(row.scenario, () => {
      const logs: LogLine[] = []
      row.check(runReply(row.chunks, createTestOptions(row.format, {}, logs)), logs)
    })
  }

  it('000 流式文本接收: each chunk is pushed as display text as soon as it arrives', () => {
    const parser = createReplyParser(createTestOptions('json'))
    const displayOf = (events: ReplyEvent[]) =>
      events.flatMap((event) => (event.type === 'display-delta' ? [event.text] : [])).join('')
    expect(displayOf(parser.push('{"emotion":"开心","text":"你'))).toBe('你')
    expect(displayOf(parser.push('好'))).toBe('好')
    expect(displayOf(parser.push('呀～今天'))).toBe('呀～今天')
    expect(displayOf(parser.push('"}'))).toBe('')
    expect(parser.end().at(-1)).toEqual({ type: 'done', text: '你好呀～今天', emotion: '开心' })
  })
})
