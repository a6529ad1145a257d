import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { BodyPump } from './create-body-pump.js'
import type { RequestTimer } from './create-request-timer.js'
import { createSseBatchReader } from './create-sse-batch-reader.js'
import type { ProviderEvent } from './types.js'

const encoder = new TextEncoder()

/** A body whose reads are `reads` (each a list of chunks), then its end. */
function createBody(reads: Uint8Array[][]): BodyPump {
  return { take: async () => reads.shift(), cancel: () => {} }
}

const idleTimer: RequestTimer = {
  signal: new AbortController().signal,
  cause: undefined,
  sawChunk: false,
  markChunk: () => {},
  toError: () => {
    throw new Error('the timer never fires here')
  },
  dispose: () => {},
}

/** A reader whose events are each `data:` line as a text delta, complete at `data: [DONE]`. */
function createReader(body: BodyPump) {
  let done = false
  return createSseBatchReader({
    body,
    timer: idleTimer,
    onEvent(event, out) {
      if (event.data === '[DONE]') done = true
      else out.push({ type: 'text-delta', text: event.data })
    },
    isComplete: () => done,
    finish: () => {},
  })
}

async function readAll(reader: ReturnType<typeof createReader>): Promise<ProviderEvent[][]> {
  const batches: ProviderEvent[][] = []
  for (let batch = await reader.next(); batch; batch = await reader.next()) batches.push(batch)
  return batches
}

const textsOf = (batches: ProviderEvent[][]) =>
  batches.flat().map((event) => (event.type === 'text-delta' ? event.text : event.type))

const streamOf = (texts: readonly string[]) =>
  encoder.encode(`${texts.map((text) => `data: ${text}\n\n`).join('')}data: [DONE]\n\n`)

describe('createSseBatchReader', () => {
  it('gives the same events in the same order however the stream is cut into reads and chunks', async () => {
    const text = fc.string({ unit: fc.constantFrom('a', ' ', 'é', '慢', '😀', '\\', '"'), maxLength: 40 })
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          text.filter((value) => value.trim() === value && value.length > 0),
          { maxLength: 30 },
        ),
        fc.array(fc.integer({ min: 1, max: 64 }), { minLength: 1, maxLength: 20 }),
        async (texts, cuts) => {
          // The stream cut into reads of one or two chunks each, at generated lengths.
          const bytes = streamOf(texts)
          const reads: Uint8Array[][] = []
          for (let start = 0, index = 0; start < bytes.length; index++) {
            const length = cuts[index % cuts.length]!
            const first = bytes.subarray(start, start + length)
            const second = index % 2 === 0 ? undefined : bytes.subarray(start + length, start + 2 * length)
            reads.push(second && second.length > 0 ? [first, second] : [first])
            start += first.length + (second?.length ?? 0)
          }
          const batches = await readAll(createReader(createBody(reads)))
          expect(textsOf(batches)).toEqual(texts)
        },
      ),
      { numRuns: 300 },
    )
  })
})
