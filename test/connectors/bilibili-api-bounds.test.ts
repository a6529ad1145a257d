/**
 * Bilibili's HTTP API is a server outside: its answers are read only up to a bound (fetch
 * decompresses, so a few kilobytes on the wire can be gigabytes in the heap), and an answer that is
 * no JSON or passes the bound is a clear error naming the endpoint, not a crash or a stall.
 */
import { gzipSync } from 'node:zlib'
import { describe, expect, it } from 'vitest'
import { createBilibiliApi, parseBilibiliCookie } from '../../src/connectors/bilibili/create-bilibili-api.js'

function apiAnswering(answer: () => Response) {
  return createBilibiliApi({
    apiUrl: 'http://bilibili.test',
    cookie: parseBilibiliCookie(''),
    fetch: async () => answer(),
  })
}

describe('the Bilibili API client', () => {
  it('reads an answer within the bound', async () => {
    const api = apiAnswering(() => Response.json({ code: 0, data: { room_id: 7, uid: 9, live_status: 1 } }))
    expect(await api.resolveRoom(7)).toEqual({ roomId: 7, ownerUid: 9, live: true })
  })

  it('stops reading an answer that never ends, naming the endpoint', async () => {
    let sent = 0
    const endless = () =>
      new Response(
        new ReadableStream<Uint8Array>({
          pull(controller) {
            sent += 1
            controller.enqueue(new TextEncoder().encode('{"code":0,"data":{"pad":"'.padEnd(64 * 1024, 'x')))
          },
        }),
      )
    await expect(apiAnswering(endless).resolveRoom(7)).rejects.toThrow(
      'http://bilibili.test/room/v1/Room/room_init answered more than 1048576 bytes',
    )
    expect(sent).toBeLessThan(40)
  })

  it('counts what a gzip answer inflates to', async () => {
    const bomb = gzipSync(`{"code":0,"data":{"pad":"${' '.repeat(8 * 1024 * 1024)}"}}`)
    const inflating = () =>
      new Response(new Blob([bomb]).stream().pipeThrough(new DecompressionStream('gzip')))
    await expect(apiAnswering(inflating).resolveRoom(7)).rejects.toThrow(/answered more than 1048576 bytes/)
  })

  it('names an answer that is not JSON', async () => {
    await expect(apiAnswering(() => new Response('<html>busy</html>')).resolveRoom(7)).rejects.toThrow(
      "http://bilibili.test/room/v1/Room/room_init answered something that is not Bilibili's JSON",
    )
  })
})
