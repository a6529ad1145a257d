import * as o200k from 'gpt-tokenizer/encoding/o200k_base'
import { describe, expect, it } from 'vitest'
import { estimateTokens } from './estimate-tokens.js'

describe('estimateTokens', () => {
  const cjk = [
    '你好！今天天气怎么样？我想出去走走，顺便买一杯咖啡。',
    '人工智能角色需要记住用户说过的话，并在下一轮对话中自然地提起。',
    '龘靐齉爩，生僻字也不能少算。鬱鬱蔥蔥的樹林裡傳來鳥叫聲。',
    '中英混排：我用 WebSocket 接收 llm_sentence 事件，延迟大约 120 ms。',
    'こんにちは、元気ですか？안녕하세요, 반갑습니다! 🎉🎉',
  ]

  it.each(cjk)('does not undercount %s against o200k', (text) => {
    expect(estimateTokens(text)).toBeGreaterThanOrEqual(o200k.encode(text).length)
  })

  it('stays within a small factor for English and counts nothing for nothing', () => {
    const text = 'Interruption (barge-in): a new input or an explicit interrupt aborts the running turn.'
    const actual = o200k.encode(text).length
    expect(estimateTokens(text)).toBeGreaterThanOrEqual(actual)
    expect(estimateTokens(text)).toBeLessThan(actual * 2)
    expect(estimateTokens('')).toBe(0)
  })
})
