import { describe, expect, it } from 'vitest'
import type { CharpipeEvent } from '../shared/events.js'
import { createReaderLedger, type ReaderCut } from './create-reader-ledger.js'
import { socketFrameOverheadBytes } from './estimate-held-bytes.js'
import { type BackpressureTransport, createWebSocketBackpressure } from './websocket-backpressure.js'

/** A socket whose buffered bytes the test sets, recording what was sent. */
function createFakeTransport() {
  const sent: unknown[] = []
  const drainListeners: (() => void)[] = []
  let buffered = 0
  const transport: BackpressureTransport = {
    bufferedAmount: () => buffered,
    send(text) {
      sent.push(JSON.parse(text))
      buffered += text.length
    },
    onceDrained: (listener) => void drainListeners.push(listener),
  }
  return {
    transport,
    sent,
    setBuffered(bytes: number) {
      buffered = bytes
    },
    drain() {
      buffered = 0
      for (const listener of drainListeners.splice(0)) listener()
    },
  }
}

const chunk = (text: string, turn = 't1'): CharpipeEvent => ({ type: 'llm_chunk', session: 's', turn, text })
const sentence = (text: string, turn = 't1'): CharpipeEvent => ({
  type: 'llm_sentence',
  session: 's',
  turn,
  index: 0,
  text,
  emotion: '平静',
})

describe('createWebSocketBackpressure', () => {
  it('sends every event as it comes while the client keeps up', () => {
    const fake = createFakeTransport()
    const backpressure = createWebSocketBackpressure({
      transport: fake.transport,
      maxBufferedBytes: 1e6,
      onOverflow: () => {},
    })
    for (const text of ['一', '二', '三']) {
      backpressure.sendEvent(chunk(text))
      fake.setBuffered(0)
    }
    expect(fake.sent.map((event) => (event as { text: string }).text)).toEqual(['一', '二', '三'])
  })

  it('holds every event of a lagging client, merging chunks in a row, and sends them in order when it drains', () => {
    const fake = createFakeTransport()
    const backpressure = createWebSocketBackpressure({
      transport: fake.transport,
      maxBufferedBytes: 1e6,
      // Room for the four frames at a drain, their objects counted (socketFrameOverheadBytes each).
      coalesceAboveBytes: 2000,
      onOverflow: () => {},
    })
    fake.setBuffered(5000)
    for (const text of ['一', '二', '三']) backpressure.sendEvent(chunk(text))
    backpressure.sendEvent(chunk('别的', 't2'))
    backpressure.sendEvent(sentence('一二三。'))
    backpressure.sendPayload({ type: 'error', code: 'bad_request', message: '坏' })
    expect(fake.sent).toEqual([])
    fake.drain()
    expect(fake.sent).toEqual([
      chunk('一二三'),
      chunk('别的', 't2'),
      sentence('一二三。'),
      { type: 'error', code: 'bad_request', message: '坏' },
    ])
    expect(backpressure.heldBytes).toBe(0)
    // Caught up: events go out as they come again.
    backpressure.sendEvent(chunk('四'))
    expect(fake.sent.at(-1)).toEqual(chunk('四'))
  })

  it('hands the socket no more than coalesceAboveBytes at a drain; the rest waits for the next one', () => {
    const fake = createFakeTransport()
    const backpressure = createWebSocketBackpressure({
      transport: fake.transport,
      maxBufferedBytes: 1e6,
      coalesceAboveBytes: 200,
      onOverflow: () => {},
    })
    fake.setBuffered(5000)
    for (let index = 0; index < 20; index++) backpressure.sendEvent(sentence(`第${index}句。`))
    fake.drain()
    const first = fake.sent.length
    expect(first).toBeGreaterThan(0)
    expect(first).toBeLessThan(20)
    while (fake.sent.length < 20) fake.drain()
    expect(fake.sent.map((event) => (event as { text: string }).text)).toEqual(
      Array.from({ length: 20 }, (_, index) => `第${index}句。`),
    )
    expect(backpressure.heldBytes).toBe(0)
  })

  it('sends the merged chunks when the socket drains', () => {
    const fake = createFakeTransport()
    const backpressure = createWebSocketBackpressure({
      transport: fake.transport,
      maxBufferedBytes: 1e6,
      coalesceAboveBytes: 100,
      onOverflow: () => {},
    })
    fake.setBuffered(500)
    backpressure.sendEvent(chunk('慢'))
    backpressure.sendEvent(chunk('慢地'))
    fake.drain()
    expect(fake.sent).toEqual([chunk('慢慢地')])
  })

  it('calls onOverflow once past the bound and sends nothing more', () => {
    const fake = createFakeTransport()
    const overflows: number[] = []
    const backpressure = createWebSocketBackpressure({
      transport: fake.transport,
      maxBufferedBytes: 1000,
      coalesceAboveBytes: 100_000,
      onOverflow: (bytes) => overflows.push(bytes),
    })
    for (let index = 0; index < 50; index++) backpressure.sendEvent(sentence('很长的一句话'.repeat(5)))
    expect(overflows).toHaveLength(1)
    expect(overflows[0]).toBeGreaterThan(1000)
    expect(backpressure.overflowed).toBe(true)
    const count = fake.sent.length
    backpressure.sendPayload({ type: 'error' })
    expect(fake.sent).toHaveLength(count)
  })
})

describe('one byte budget for everything held for a client', () => {
  it('counts merged text waiting for the socket, closes at the bound and drops what it held', async () => {
    const fake = createFakeTransport()
    let overflows = 0
    const backpressure = createWebSocketBackpressure({
      transport: fake.transport,
      maxBufferedBytes: 64 * 1024,
      coalesceAboveBytes: 1024,
      onOverflow: () => overflows++,
    })
    // The socket's own buffer stays where it is (the client reads nothing): only held text grows.
    fake.setBuffered(2048)
    const piece = '字'.repeat(1000)
    for (let index = 0; index < 21 && overflows === 0; index++) backpressure.sendEvent(chunk(piece))
    expect(backpressure.heldBytes).toBeGreaterThan(0)
    for (let index = 0; index < 10 && overflows === 0; index++) backpressure.sendEvent(chunk(piece))
    expect(overflows).toBe(1)
    expect(backpressure.overflowed).toBe(true)
    expect(backpressure.heldBytes).toBe(0)
    backpressure.sendEvent(chunk(piece))
    expect(overflows).toBe(1)
    expect(fake.sent).toHaveLength(0)
  })

  it('holds many small pieces as one joined text: the budget is what is allocated, never below the text', () => {
    const fake = createFakeTransport()
    const backpressure = createWebSocketBackpressure({
      transport: fake.transport,
      maxBufferedBytes: 64 * 1024 * 1024,
      coalesceAboveBytes: 1024,
      onOverflow: () => {},
    })
    fake.setBuffered(2048)
    // A 200 KB reply in 6-byte pieces (the reported case: ~34,000 pieces), an emoji cut between them.
    const pieces = Array.from({ length: 34_000 }, (_, index) =>
      index === 7 ? '\ud83d' : index === 8 ? '\ude00' : '风很',
    )
    for (const piece of pieces) backpressure.sendEvent(chunk(piece))
    const textBytes = Buffer.byteLength(pieces.join(''))
    expect(backpressure.heldBytes).toBeGreaterThanOrEqual(textBytes)
    // Grown by doubling: at most twice the text.
    expect(backpressure.heldBytes).toBeLessThanOrEqual(2 * textBytes)
    backpressure.sendEvent(sentence('风很。'))
    // Sent as one frame at the first drain; the sentence at the next.
    fake.drain()
    fake.drain()
    expect(fake.sent).toHaveLength(2)
    expect(fake.sent[0]).toEqual({ type: 'llm_chunk', session: 's', turn: 't1', text: pieces.join('') })
    expect(fake.sent[1]).toEqual(sentence('风很。'))
    expect(backpressure.heldBytes).toBe(0)
  })

  it('lets go of what it holds when the socket closes, and sends nothing more', () => {
    const fake = createFakeTransport()
    const backpressure = createWebSocketBackpressure({
      transport: fake.transport,
      maxBufferedBytes: 64 * 1024 * 1024,
      coalesceAboveBytes: 1024,
      onOverflow: () => {},
    })
    fake.setBuffered(2048)
    for (let index = 0; index < 100; index++) backpressure.sendEvent(chunk('字'.repeat(100)))
    expect(backpressure.heldBytes).toBeGreaterThan(0)
    backpressure.dispose()
    expect(backpressure.heldBytes).toBe(0)
    fake.drain()
    backpressure.sendEvent(sentence('完。'))
    expect(fake.sent).toHaveLength(0)
  })
})

describe('the server-wide ledger', () => {
  it('counts the objects of each frame still in the socket, not only its bytes', () => {
    const fake = createFakeTransport()
    const backpressure = createWebSocketBackpressure({
      transport: fake.transport,
      maxBufferedBytes: 1e6,
      coalesceAboveBytes: 10_000,
      onOverflow: () => {},
    })
    // The socket never writes out: 20 small frames stay in it.
    for (let index = 0; index < 20; index++) backpressure.sendEvent(chunk('字', `t${index}`))
    const socketBytes = fake.transport.bufferedAmount()
    expect(fake.sent).toHaveLength(20)
    expect(backpressure.chargedBytes).toBeGreaterThanOrEqual(socketBytes + 20 * socketFrameOverheadBytes)
    fake.drain()
    backpressure.sendEvent(chunk('字'))
    // Written out: only the frame sent since counts.
    expect(backpressure.chargedBytes).toBeLessThan(socketBytes)
  })

  it('cuts the client that lags most once all clients together pass the total, and only it', () => {
    const ledger = createReaderLedger({ readMaxTotalBytes: () => 100_000 })
    const clients = [0, 1].map(() => {
      const fake = createFakeTransport()
      const cuts: ReaderCut[] = []
      const backpressure = createWebSocketBackpressure({
        transport: fake.transport,
        maxBufferedBytes: 1e6,
        coalesceAboveBytes: 1024,
        ledger,
        onOverflow: (_bytes, cut) => cuts.push(cut),
      })
      fake.setBuffered(2048)
      return { fake, cuts, backpressure }
    })
    const [lagging, other] = clients as [(typeof clients)[0], (typeof clients)[0]]
    for (let index = 0; index < 20; index++) lagging.backpressure.sendEvent(chunk('字'.repeat(1000)))
    // The other client's events tip the total over: the one that holds the most is cut.
    for (let index = 0; index < 20 && lagging.cuts.length === 0; index++)
      other.backpressure.sendEvent(chunk('字'.repeat(1000)))
    expect(lagging.cuts).toEqual([{ bound: 'total', heldBytes: expect.any(Number), limit: 100_000 }])
    expect(lagging.backpressure.overflowed).toBe(true)
    expect(other.cuts).toEqual([])
    expect(other.backpressure.overflowed).toBe(false)
    expect(ledger.totalBytes).toBe(other.backpressure.chargedBytes)
    // A closed client leaves nothing in the ledger.
    other.backpressure.dispose()
    expect(ledger.totalBytes).toBe(0)
  })
})
