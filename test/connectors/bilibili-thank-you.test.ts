import { describe, expect, it } from 'vitest'
import {
  createThankYouWindow,
  describeThanks,
  type ThankYouLine,
} from '../../src/connectors/bilibili/create-thank-you-window.js'
import { createManualClock } from '../../src/testing/index.js'

describe('the thank-you line', () => {
  it('names each viewer once with their gifts added up, and counts those past ten', () => {
    expect(
      describeThanks([
        { kind: 'gift', name: '张三', gift: '小花花', count: 1, value: 1 },
        { kind: 'follow', name: '张三' },
        { kind: 'gift', name: '张三', gift: '小花花', count: 2, value: 2 },
        { kind: 'guard', name: '李四', guard: '提督', count: 1, value: 1998 },
      ]),
    ).toBe('张三 投喂 小花花 ×3、关注了直播间；李四 开通了提督')
    const many = Array.from({ length: 13 }, (_, index) => ({ kind: 'follow' as const, name: `观众${index}` }))
    const told = describeThanks(many)
    expect(told.split('；')).toHaveLength(11)
    expect(told.endsWith('观众9 关注了直播间；还有 3 位观众')).toBe(true)
  })

  it('tells at most one line per window, opened by its first event, and none after close', async () => {
    const clock = createManualClock()
    const lines: ThankYouLine[] = []
    const window = createThankYouWindow({
      everyMs: 30_000,
      template: '谢谢{thanks}！',
      clock,
      onLine: (line) => lines.push(line),
    })
    window.add({ kind: 'gift', name: '张三', gift: '小花花', count: 1, value: 0.1 })
    await clock.advance(20_000)
    window.add({ kind: 'gift', name: '王五', gift: '小花花', count: 1, value: 0.2 })
    await clock.advance(9_999)
    expect(lines).toEqual([])
    await clock.advance(1)
    expect(lines).toEqual([{ text: '谢谢张三 投喂 小花花；王五 投喂 小花花！', value: 0.3 }])
    window.add({ kind: 'follow', name: '赵六' })
    window.close()
    await clock.advance(60_000)
    expect(lines).toHaveLength(1)
  })
})
