import { describe, expect, it } from 'vitest'
import { createSliceQueue } from '../../shared/create-slice-queue.js'
import { nextTurnOfEventLoop } from '../../shared/next-turn-of-event-loop.js'
import { segmentAhead } from './segment-indexed-fields.js'
import { hasSegmentedText } from './segment-text.js'

describe('segmentAhead', () => {
  it('segments each text as a slice of the queue, none synchronously', async () => {
    const first = '我们明天早上去港口看渔船回来。'
    const second = '守塔人说今晚会起大雾。'
    const slices = createSliceQueue()
    const done = segmentAhead([first, second], slices)
    expect(hasSegmentedText(first)).toBe(false)
    expect(slices.waiting).toBe(1)
    await nextTurnOfEventLoop()
    expect(hasSegmentedText(first)).toBe(true)
    expect(hasSegmentedText(second)).toBe(false)
    await done
    expect(hasSegmentedText(second)).toBe(true)
  })

  it('does not wait for texts already segmented or empty', async () => {
    const text = '海边的烤鱼很好吃。'
    const slices = createSliceQueue()
    await segmentAhead([text], slices)
    let settled = false
    const done = segmentAhead([text, '', null, undefined], slices).then(() => {
      settled = true
    })
    await Promise.resolve()
    await Promise.resolve()
    expect(settled).toBe(true)
    expect(slices.waiting).toBe(0)
    await done
  })
})
