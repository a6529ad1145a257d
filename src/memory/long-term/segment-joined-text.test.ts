import fc from 'fast-check'
import { describe, expect, it, vi } from 'vitest'
import { joinContext } from './neighbour-context.js'

type SegmentTextModule = typeof import('./segment-text.js')

/** A fresh copy of the module: its own empty cache, so nothing one call kept answers another. */
async function freshSegmentText(): Promise<SegmentTextModule> {
  vi.resetModules()
  return import('./segment-text.js')
}

// Pieces that stress the segmenter's windows and modes: CJK sentences and unbroken runs, Latin
// words with inner punctuation (cut after it, a word would split), numbers, spaces, newlines.
const piece = fc.constantFrom(
  '今天的海风有点凉，我们去看灯塔吧。',
  '灯塔在港口东边的小山上。',
  '这是一段很长的中文文本没有空格',
  '北京大学',
  'User: ',
  '\nAssistant: ',
  "don't ",
  '3.5 ',
  'e-mail ',
  'Caroline’s café ',
  'ＡＢＣ ',
  '。',
  '，',
  '！',
  '？',
  '、',
  '\u0301',
  '\u200d',
  '1，5',
  ' ',
  '\n',
  'カタカナ',
  '한국어 ',
  '😀',
)
const text = fc.array(piece, { maxLength: 140 }).map((pieces) => pieces.join(''))

describe('segmentJoinedText', () => {
  it('gives the terms segmenting the joined context whole gives, whatever its parts', async () => {
    const joinedWay = await freshSegmentText()
    const wholeWay = await freshSegmentText()
    fc.assert(
      fc.property(text, text, fc.boolean(), (first, second, warm) => {
        // Half the runs with the parts' terms kept first, as a store's write finds them.
        if (warm) {
          joinedWay.segmentText(first)
          joinedWay.segmentText(second)
        }
        const joined = joinContext(first, second)
        const expected = wholeWay.segmentText(joined)
        if (!first) return
        expect(joinedWay.segmentJoinedText(first, second)).toEqual(expected)
        // Kept under the joined text: the store's transaction finds it there.
        expect(joinedWay.hasSegmentedText(joined)).toBe(true)
      }),
      { numRuns: 1000 },
    )
  })

  it('gives the same terms for two turns of a streaming session (CJK, windows cut in the second)', async () => {
    const joinedWay = await freshSegmentText()
    const wholeWay = await freshSegmentText()
    const reply = '今天的海风有点凉，我们去看灯塔吧。灯塔在港口东边的小山上。'.repeat(16)
    const first = `User: r6-0001 第0个问题：灯塔在哪里？\nAssistant: ${reply}`
    const second = `User: r6-0001 第1个问题：灯塔在哪里？\nAssistant: ${reply.slice(3)}`
    expect(first.length + second.length).toBeGreaterThan(1000)
    joinedWay.segmentText(first)
    joinedWay.segmentText(second)
    expect(joinedWay.segmentJoinedText(first, second)).toEqual(wholeWay.segmentText(`${first}\n${second}`))
  })

  it('segments nothing again when its parts were kept, however long the parts', async () => {
    const joinedWay = await freshSegmentText()
    // Commas only: a window of the joined text cut after one is no clean break for the words.
    const reply = '今天的海风有点凉，我们去看灯塔吧，'.repeat(32)
    const first = `User: r6-0001 第0个问题：灯塔在哪里？\nAssistant: ${reply}`
    const second = `User: r6-0001 第1个问题：灯塔在哪里？\nAssistant: ${reply.slice(3)}`
    joinedWay.segmentText(first)
    joinedWay.segmentText(second)
    const segment = vi.spyOn(Intl.Segmenter.prototype, 'segment')
    try {
      joinedWay.segmentJoinedText(first, second)
      // Each part's lines are cut into the windows they have alone: the kept terms serve.
      expect(segment).not.toHaveBeenCalled()
    } finally {
      segment.mockRestore()
    }
  })
})
