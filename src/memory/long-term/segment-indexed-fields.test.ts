import { describe, expect, it } from 'vitest'
import { nextTurnOfEventLoop } from '../../shared/next-turn-of-event-loop.js'
import { segmentAhead } from './segment-indexed-fields.js'
import { hasSegmentedText } from './segment-text.js'

describe('segmentAhead', () => {
  it('segments one text per turn of the event loop, none synchronously', async () => {
    const first = '我们明天早上去港口看渔船回来。'
    const second = '守塔人说今晚会起大雾。'
    const done = segmentAhead([first, second])
    expect(hasSegmentedText(first)).toBe(false)
    await nextTurnOfEventLoop()
    expect(hasSegmentedText(first)).toBe(true)
    expect(hasSegmentedText(second)).toBe(false)
    await done
    expect(hasSegmentedText(second)).toBe(true)
  })

  it('does not wait for texts already segmented or empty', async () => {
    const text = '海边的烤鱼很好吃。'
    await segmentAhead([text])
    let settled = false
    const done = segmentAhead([text, '', null, undefined]).then(() => {
      settled = true
    })
    await Promise.resolve()
    await Promise.resolve()
    expect(settled).toBe(true)
    await done
  })
})
