import { gzipSync } from 'node:zlib'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { readBoundedText } from './read-bounded-text.js'

/** A Response whose body arrives in the given pieces. */
function respond(pieces: Uint8Array[]): Response {
  return new Response(
    new ReadableStream({
      start(controller) {
        for (const piece of pieces) controller.enqueue(piece)
        controller.close()
      },
    }),
  )
}

describe('readBoundedText', () => {
  it('reads a body within the bound whole, and cuts one past it at the bound', async () => {
    expect(await readBoundedText(new Response('{"code":0}'), 10)).toEqual({
      text: '{"code":0}',
      complete: true,
    })
    expect(await readBoundedText(new Response('{"code":0}'), 4)).toEqual({ text: '{"co', complete: false })
    expect(await readBoundedText(new Response(null), 4)).toEqual({ text: '', complete: true })
  })

  it('stops a stream that never ends at the bound', async () => {
    let sent = 0
    const endless = new ReadableStream<Uint8Array>({
      pull(controller) {
        sent += 1
        controller.enqueue(new Uint8Array(1024).fill(0x61))
      },
    })
    const read = await readBoundedText(new Response(endless), 10_000)
    expect(read).toEqual({ text: 'a'.repeat(10_000), complete: false })
    expect(sent).toBeLessThan(20)
  })

  it('counts bytes after decompression', async () => {
    const bomb = gzipSync(' '.repeat(4 * 1024 * 1024))
    const response = new Response(new Blob([bomb]).stream().pipeThrough(new DecompressionStream('gzip')))
    const read = await readBoundedText(response, 64 * 1024)
    expect(read.complete).toBe(false)
    expect(read.text.length).toBe(64 * 1024)
  })

  it('gives the same text as response.text() for any body within the bound, however it is split', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.uint8Array({ maxLength: 64 }), { maxLength: 8 }),
        fc.boolean(),
        async (given, marked) => {
          // A byte order mark first, sometimes: text() drops it.
          const pieces = marked ? [new Uint8Array([0xef, 0xbb, 0xbf]), ...given] : given
          const whole = await new Response(Buffer.concat(pieces)).text()
          const read = await readBoundedText(respond(pieces), 1024)
          expect(read).toEqual({ text: whole, complete: true })
        },
      ),
      { numRuns: 200 },
    )
  })
})
