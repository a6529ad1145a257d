import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  createTestOptions,
  loadReplyVectors,
  type ReplyRun,
  runReply,
  splitAt,
  splitEveryUnit,
} from './reply-test-helpers.js'

const vectors = loadReplyVectors()

/**
 * The vectors give the confirmed split, which must not depend on chunking. Early release (the
 * default) may instead release at a chunk end and move a following `！～」` to the next sentence,
 * so it is checked apart: one chunk gives the vector's split, and any chunking covers the same text.
 */
const confirmed = { early_release: false }

/** Whole, one code unit at a time, and many random chunkings must all give the same result. */
function expectSameForAnyChunking(
  text: string,
  check: (run: ReplyRun) => void,
  runWith: (chunks: string[]) => ReplyRun,
) {
  const whole = runWith([text])
  check(whole)
  const byUnit = runWith(splitEveryUnit(text))
  check(byUnit)
  expect(byUnit.structure).toEqual(whole.structure)
  fc.assert(
    fc.property(fc.array(fc.nat({ max: text.length }), { maxLength: 12 }), (cuts) => {
      const run = runWith(splitAt(text, cuts))
      check(run)
      expect(run.structure).toEqual(whole.structure)
    }),
    { numRuns: 60 },
  )
}

describe('reply-parsing.json sentences (reply_format: plain)', () => {
  for (const vector of vectors.sentences) {
    const label = `${JSON.stringify(vector.text)}${vector.options ? ` ${JSON.stringify(vector.options)}` : ''}`
    it(label, () => {
      const options = createTestOptions('plain', { ...confirmed, ...vector.options })
      expectSameForAnyChunking(
        vector.text,
        (run) => {
          expect(run.sentences.map(([text]) => text)).toEqual(vector.sentences)
          expect(run.display).toBe(vector.text)
          expect(run.indexes).toEqual(vector.sentences.map((_, index) => index))
        },
        (chunks) => runReply(chunks, options),
      )
    })
  }
})

describe('reply-parsing.json replies', () => {
  for (const vector of vectors.replies) {
    const label = `${vector.reply_format}: ${JSON.stringify(vector.chunks.join(''))}${vector.options ? ` ${JSON.stringify(vector.options)}` : ''}`
    it(label, () => {
      const options = createTestOptions(vector.reply_format, { ...confirmed, ...vector.options })
      const check = (run: ReplyRun) => {
        expect(run.display).toBe(vector.display)
        expect(run.sentences).toEqual(vector.sentences)
        expect(run.done).toEqual({ text: vector.display, emotion: vector.emotion })
        expect(run.emotions.at(-1)).toBe(vector.emotion)
        expect(run.events.at(-1)?.type).toBe('done')
      }
      check(runReply(vector.chunks, options))
      expectSameForAnyChunking(vector.chunks.join(''), check, (chunks) => runReply(chunks, options))
    })
  }
})

describe('reply-parsing.json sentences with early release', () => {
  const compact = (texts: string[]) => texts.join('').replace(/\s+/g, '')
  for (const vector of vectors.sentences) {
    it(JSON.stringify(vector.text), () => {
      const spoken = runReply([vector.text], createTestOptions('plain', vector.options))
      expect(spoken.sentences.map(([text]) => text)).toEqual(vector.sentences)
      // Coverage is compared without speech filters, which may read a moved `」` differently.
      const options = { ...createTestOptions('plain', vector.options), speechFilters: [] }
      const whole = runReply([vector.text], options)
      const covered = compact(whole.sentences.map(([text]) => text))
      fc.assert(
        fc.property(fc.array(fc.nat({ max: vector.text.length }), { maxLength: 12 }), (cuts) => {
          const run = runReply(splitAt(vector.text, cuts), options)
          expect(run.display).toBe(vector.text)
          expect(compact(run.sentences.map(([text]) => text))).toBe(covered)
        }),
        { numRuns: 60 },
      )
    })
  }
})
