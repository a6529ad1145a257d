import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { limitResponseBody, type ResponseBodyLimits } from './limit-response-body.js'

class Refused extends Error {}

const limits = (bounds: Partial<ResponseBodyLimits>): ResponseBodyLimits => ({
  maxBytes: Number.POSITIVE_INFINITY,
  refuse: (bound, bytes) => new Refused(`${bound} past ${bytes}`),
  ...bounds,
})

/** An answer whose body arrives in the given pieces. */
function answer(pieces: Uint8Array[], contentType: string): Response {
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const piece of pieces) controller.enqueue(piece)
      controller.close()
    },
  })
  return new Response(body, { headers: { 'content-type': contentType } })
}

/** `bytes` cut at `cuts` (any offsets). */
function cut(bytes: Uint8Array, cuts: number[]): Uint8Array[] {
  const offsets = [...new Set(cuts.map((each) => each % (bytes.length + 1)))].sort((a, b) => a - b)
  const pieces: Uint8Array[] = []
  let start = 0
  for (const offset of [...offsets, bytes.length]) {
    pieces.push(bytes.subarray(start, offset))
    start = offset
  }
  return pieces
}

/** The largest event's bytes, line ends left out, by the event-stream grammar spelled out. */
function measureLargestEvent(bytes: Uint8Array): number {
  let largest = 0
  let event = 0
  for (const line of Buffer.from(bytes)
    .toString('latin1')
    .split(/\r\n|\r|\n/)) {
    event = line === '' ? 0 : event + line.length
    largest = Math.max(largest, event)
  }
  return largest
}

async function read(response: Response): Promise<Uint8Array | Refused> {
  try {
    return new Uint8Array(await response.arrayBuffer())
  } catch (error) {
    if (error instanceof Refused) return error
    throw error
  }
}

describe('limitResponseBody', () => {
  it('passes a body up to maxBytes unchanged, and fails the read of a longer one', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.uint8Array({ maxLength: 300 }),
        fc.array(fc.nat(), { maxLength: 6 }),
        fc.nat(320),
        async (bytes, cuts, maxBytes) => {
          const read_ = await read(
            limitResponseBody(answer(cut(bytes, cuts), 'application/json'), limits({ maxBytes })),
          )
          if (bytes.length <= maxBytes) expect(read_).toEqual(bytes)
          else expect(read_).toEqual(new Refused(`body past ${maxBytes}`))
        },
      ),
    )
  })

  it('bounds each event of an event stream, not the stream, wherever the pieces cut its line ends', async () => {
    const eventText = fc
      .array(fc.constantFrom('a', 'é', ':', ' ', '\n', '\r', '\r\n', 'data: x'), { maxLength: 60 })
      .map((parts) => new TextEncoder().encode(parts.join('')))
    await fc.assert(
      fc.asyncProperty(
        eventText,
        fc.array(fc.nat(), { maxLength: 8 }),
        fc.nat(24),
        async (bytes, cuts, maxEventBytes) => {
          const response = limitResponseBody(
            answer(cut(bytes, cuts), 'text/event-stream; charset=utf-8'),
            limits({ maxBytes: 0, maxEventBytes }),
          )
          const read_ = await read(response)
          if (measureLargestEvent(bytes) <= maxEventBytes) expect(read_).toEqual(bytes)
          else expect(read_).toEqual(new Refused(`event past ${maxEventBytes}`))
        },
      ),
    )
  })

  it('leaves an event stream as it is without an event bound, and keeps status, headers and url', async () => {
    const stream = answer([new TextEncoder().encode('data: long\n\n')], 'text/event-stream')
    expect(limitResponseBody(stream, limits({ maxBytes: 1 }))).toBe(stream)
    const original = new Response('{}', { status: 201, statusText: 'Made', headers: { 'x-id': '7' } })
    Object.defineProperty(original, 'url', { value: 'http://127.0.0.1/mcp' })
    const limited = limitResponseBody(original, limits({ maxBytes: 10 }))
    expect([limited.status, limited.statusText, limited.headers.get('x-id'), limited.url]).toEqual([
      201,
      'Made',
      '7',
      'http://127.0.0.1/mcp',
    ])
    expect(await limited.text()).toBe('{}')
  })
})
