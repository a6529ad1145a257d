import { deserializeMessage, ReadBuffer } from '@modelcontextprotocol/sdk/shared/stdio.js'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { createLineBuffer, type StdioReadBuffer } from './create-line-buffer.js'

/** What a buffer answers to each step: every message `readMessage` gives after each append, or the error. */
function replay(buffer: StdioReadBuffer, chunks: Buffer[]): unknown[] {
  const seen: unknown[] = []
  const attempt = (step: () => unknown) => {
    try {
      return step()
    } catch (error) {
      seen.push(`error: ${(error as Error).message}`)
      return undefined
    }
  }
  for (const chunk of chunks) {
    attempt(() => buffer.append(chunk))
    for (let reads = 0; reads < 50; reads++) {
      const message = attempt(() => buffer.readMessage())
      if (message === null) break
      if (message !== undefined) seen.push(message)
    }
  }
  return seen
}

const line = fc.oneof(
  fc.constant('{"jsonrpc":"2.0","id":1,"result":{"text":"灯塔 🌊"}}'),
  fc.constant('{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}'),
  fc.constant('{"jsonrpc":"2.0","id":2,"result":{}}\r'),
  fc.constant('not json'),
  fc.constant(''),
  fc.string({ maxLength: 12 }),
)

describe('createLineBuffer', () => {
  it("answers as the SDK's ReadBuffer does, for any lines cut into any chunks, under any bound", () => {
    fc.assert(
      fc.property(
        fc.array(line, { maxLength: 8 }),
        fc.boolean(),
        fc.array(fc.nat(), { maxLength: 10 }),
        fc.integer({ min: 1, max: 400 }),
        (lines, endsOpen, cuts, maxBytes) => {
          const bytes = Buffer.from(lines.join('\n') + (endsOpen ? '' : '\n'))
          const offsets = [...new Set(cuts.map((each) => each % (bytes.length + 1)))].sort((a, b) => a - b)
          const chunks: Buffer[] = []
          let start = 0
          for (const offset of [...offsets, bytes.length]) {
            chunks.push(bytes.subarray(start, offset))
            start = offset
          }
          const ours = replay(createLineBuffer({ maxBytes, parse: deserializeMessage }), chunks)
          const sdks = replay(new ReadBuffer({ maxBufferSize: maxBytes }), chunks)
          expect(ours).toEqual(sdks)
        },
      ),
    )
  })
})
