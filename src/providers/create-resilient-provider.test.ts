import { getEventListeners } from 'node:events'
import { describe, expect, it, vi } from 'vitest'
import { AbortedError, UpstreamHttpError, UpstreamTimeoutError } from '../shared/errors.js'
import { createFakeProvider } from '../testing/create-fake-provider.js'
import { createResilientProvider, sleepWithSignal } from './create-resilient-provider.js'
import { iterateEventBatches } from './iterate-event-batches.js'
import { captureLogger, collectEvents, logLevels } from './test-helpers.js'
import type { ChatProvider, ProviderEvent, ProviderEventBatches } from './types.js'

const request = { messages: [{ role: 'user' as const, content: 'hi' }] }
const reply = (text: string): ProviderEvent[] => [
  { type: 'text-delta', text },
  { type: 'finish', reason: 'stop' },
]

function recordSleeps() {
  const delays: number[] = []
  return { delays, sleep: async (milliseconds: number) => void delays.push(milliseconds) }
}

describe('createResilientProvider', () => {
  it('lets go of the caller signal when a stream ends, however it ends', async () => {
    // A signal that outlives the stream (a socket's, a describer's timeout) would otherwise keep
    // every request it served, images included, alive through the attempt's abort listener.
    const primary = createFakeProvider({ defaultReply: reply('ok') })
    const provider = createResilientProvider({ primary, firstChunkTimeoutsMs: [10_000] })
    const signal = new AbortController().signal
    for (let turn = 0; turn < 3; turn++) await collectEvents(provider.streamChat(request, { signal }))
    expect(getEventListeners(signal, 'abort')).toHaveLength(0)
    const iterator = provider.streamChat(request, { signal })[Symbol.asyncIterator]()
    await iterator.next()
    expect(getEventListeners(signal, 'abort')).toHaveLength(1)
    await iterator.return?.()
    expect(getEventListeners(signal, 'abort')).toHaveLength(0)
  })

  it('retries retryable failures with growing, jittered backoff', async () => {
    const primary = createFakeProvider({
      replies: [
        { events: [], error: new UpstreamHttpError(503, '') },
        { events: [], error: new UpstreamHttpError(502, '') },
        reply('ok'),
      ],
    })
    const { delays, sleep } = recordSleeps()
    const provider = createResilientProvider({ primary, sleep, baseDelayMs: 100, random: () => 0.5 })
    const result = await collectEvents(provider.streamChat(request))
    expect(result.text).toBe('ok')
    expect(primary.calls).toHaveLength(3)
    expect(delays).toEqual([75, 150])
  })

  it('gives up after max_retries and tries the fallbacks in order', async () => {
    const { logger, lines } = captureLogger()
    const primary = createFakeProvider({
      name: 'deepseek',
      defaultReply: { events: [], error: new UpstreamHttpError(500, '') },
    })
    const second = createFakeProvider({
      name: 'moonshot',
      replies: [{ events: [], error: new UpstreamHttpError(401, '') }],
    })
    const third = createFakeProvider({ name: 'ollama', replies: [reply('备用')] })
    const { delays, sleep } = recordSleeps()
    const provider = createResilientProvider({
      primary,
      fallbacks: [second, third],
      maxRetries: 2,
      sleep,
      logger,
    })
    const result = await collectEvents(provider.streamChat(request))
    expect(result.text).toBe('备用')
    expect([primary.calls.length, second.calls.length, third.calls.length]).toEqual([3, 1, 1])
    // 401 is not retryable: straight to the next fallback.
    expect(delays).toHaveLength(2)
    expect(lines.filter((line) => /falling back/.test(line.msg)).map((line) => line.fallback)).toEqual([
      'moonshot',
      'ollama',
    ])
  })

  it('throws the last failure when every provider fails', async () => {
    const primary = createFakeProvider({
      replies: [{ events: [], error: new UpstreamHttpError(400, 'bad') }],
    })
    const result = await collectEvents(createResilientProvider({ primary }).streamChat(request))
    expect(result.error?.code).toBe('upstream_http')
    expect(result.error?.status).toBe(400)
  })

  it('never retries after an event was passed on', async () => {
    const primary = createFakeProvider({
      replies: [
        { events: [{ type: 'text-delta', text: '一半' }], error: new UpstreamTimeoutError('stalled') },
        reply('again'),
      ],
    })
    const fallback = createFakeProvider({ replies: [reply('fallback')] })
    const provider = createResilientProvider({ primary, fallbacks: [fallback], sleep: async () => {} })
    const result = await collectEvents(provider.streamChat(request))
    expect(result.text).toBe('一半')
    expect(result.error?.code).toBe('upstream_timeout')
    expect(primary.calls).toHaveLength(1)
    expect(fallback.calls).toHaveLength(0)
  })

  it('never retries a caller abort, nor logs it as a failure', async () => {
    const { logger, lines } = captureLogger()
    const primary = createFakeProvider({ replies: [{ events: [], error: new AbortedError() }] })
    const fallback = createFakeProvider()
    const provider = createResilientProvider({ primary, fallbacks: [fallback], logger })
    const result = await collectEvents(provider.streamChat(request))
    expect(result.error?.code).toBe('aborted')
    expect(fallback.calls).toHaveLength(0)
    expect(lines.filter((line) => line.level >= logLevels.warn)).toEqual([])
  })

  it('stops waiting for a backoff as soon as the caller aborts', async () => {
    const primary = createFakeProvider({
      replies: [{ events: [], error: new UpstreamHttpError(429, '', { retryAfterSeconds: 20 }) }],
    })
    const controller = new AbortController()
    const waits: number[] = []
    // The real wait, aborted once it has begun: the 20 s backoff must not be sat out.
    const sleep = (milliseconds: number, signal?: AbortSignal) => {
      waits.push(milliseconds)
      const waiting = sleepWithSignal(milliseconds, signal)
      controller.abort()
      return waiting
    }
    const provider = createResilientProvider({ primary, sleep })
    // Time stands still: only the abort can end the wait.
    vi.useFakeTimers()
    try {
      const result = await collectEvents(provider.streamChat(request, { signal: controller.signal }))
      expect(result.error?.code).toBe('aborted')
    } finally {
      vi.useRealTimers()
    }
    expect(waits).toEqual([20_000])
    expect(primary.calls).toHaveLength(1)
  })

  it('does not retry a timeout on the same provider', async () => {
    const primary = createFakeProvider({
      replies: [{ events: [], error: new UpstreamTimeoutError('no first chunk') }, reply('never')],
    })
    const fallback = createFakeProvider({ name: 'fallback', replies: [reply('备用')] })
    const { delays, sleep } = recordSleeps()
    const provider = createResilientProvider({ primary, fallbacks: [fallback], sleep })
    const result = await collectEvents(provider.streamChat(request))
    expect(result.text).toBe('备用')
    expect([primary.calls.length, delays.length]).toEqual([1, 0])
  })
})

describe('createResilientProvider: one first-chunk budget per provider', () => {
  const silent = { events: reply('late'), delayMs: 600_000 }

  it('ends the wait for a silent model at its budget and moves on to the fallback', async () => {
    const primary = createFakeProvider({ replies: [silent, silent, silent] })
    const fallback = createFakeProvider({ name: 'fallback', replies: [reply('备用')] })
    const provider = createResilientProvider({
      primary,
      fallbacks: [fallback],
      firstChunkTimeoutsMs: [100, 100],
    })
    const result = await collectEvents(provider.streamChat(request))
    expect(result.text).toBe('备用')
    expect(primary.calls).toHaveLength(1)
    expect(primary.calls[0]!.aborted).toBe(true)
  })

  it('ends the turn with upstream_timeout when there is no fallback', async () => {
    const primary = createFakeProvider({ replies: [silent, silent, silent] })
    const provider = createResilientProvider({ primary, maxRetries: 2, firstChunkTimeoutsMs: [100] })
    const result = await collectEvents(provider.streamChat(request))
    expect(result.error?.code).toBe('upstream_timeout')
    expect(result.error?.message).toContain('within 100 ms')
    expect(primary.calls).toHaveLength(1)
  })

  it('goes straight to the fallback when Retry-After is longer than what is left', async () => {
    const primary = createFakeProvider({
      replies: [{ events: [], error: new UpstreamHttpError(429, '', { retryAfterSeconds: 3600 }) }],
    })
    const fallback = createFakeProvider({ name: 'fallback', replies: [reply('备用')] })
    const { delays, sleep } = recordSleeps()
    const provider = createResilientProvider({
      primary,
      fallbacks: [fallback],
      sleep,
      firstChunkTimeoutsMs: [120_000, 120_000],
    })
    const result = await collectEvents(provider.streamChat(request))
    expect(result.text).toBe('备用')
    expect([primary.calls.length, delays.length]).toEqual([1, 0])
  })

  it('ends with the upstream answer when Retry-After is past the budget and there is no fallback', async () => {
    const primary = createFakeProvider({
      replies: [{ events: [], error: new UpstreamHttpError(429, '', { retryAfterSeconds: 3600 }) }],
    })
    const { delays, sleep } = recordSleeps()
    const provider = createResilientProvider({ primary, sleep, firstChunkTimeoutsMs: [120_000] })
    const result = await collectEvents(provider.streamChat(request))
    expect(result.error).toMatchObject({ code: 'upstream_http', status: 429 })
    expect(delays).toEqual([])
  })

  it('does not start a backoff that would pass the budget', async () => {
    const primary = createFakeProvider({ replies: [{ events: [], error: new UpstreamHttpError(503, '') }] })
    const { delays, sleep } = recordSleeps()
    const provider = createResilientProvider({
      primary,
      sleep,
      baseDelayMs: 500,
      firstChunkTimeoutsMs: [100],
    })
    const result = await collectEvents(provider.streamChat(request))
    expect(result.error?.status).toBe(503)
    expect(delays).toEqual([])
  })
})

describe('createResilientProvider: closing', () => {
  it('closes the providers it wraps (their kept-alive connections) when closed', () => {
    const closed: string[] = []
    const closable = (name: string) =>
      Object.assign(createFakeProvider({ name }), { close: () => void closed.push(name) })
    const provider = createResilientProvider({
      primary: closable('primary'),
      fallbacks: [createFakeProvider({ name: 'no-close' }), closable('fallback')],
    })
    provider.close()
    expect(closed).toEqual(['primary', 'fallback'])
  })
})

describe('createResilientProvider: batches', () => {
  const text = (value: string): ProviderEvent => ({ type: 'text-delta', text: value })
  const batchesOf = (provider: ChatProvider) =>
    provider.streamChat(request)[Symbol.asyncIterator]() as AsyncIterator<ProviderEvent> &
      ProviderEventBatches

  it('passes the batches of a batched provider through once its first event is in', async () => {
    const reads: ProviderEvent[][] = [
      [text('a'), text('b')],
      [text('c'), text('d')],
    ]
    const primary: ChatProvider = {
      name: 'batched',
      model: 'm',
      streamChat: () =>
        iterateEventBatches({
          open: async () => ({ next: async () => reads.shift() }),
          fail: (error) => error,
          close() {},
        }),
    }
    const iterator = batchesOf(createResilientProvider({ primary }))
    expect(await iterator.nextBatch()).toEqual([text('a')])
    expect(await iterator.nextBatch()).toEqual([text('b')])
    expect(await iterator.nextBatch()).toEqual([text('cd')])
    expect(await iterator.nextBatch()).toBeUndefined()
  })

  it('hands the events of a custom provider over one a batch, and its failure after them', async () => {
    const primary: ChatProvider = {
      name: 'custom',
      model: 'm',
      async *streamChat() {
        yield text('a')
        yield text('b')
        throw new UpstreamHttpError(500, 'gone')
      },
    }
    const iterator = batchesOf(createResilientProvider({ primary, maxRetries: 0 }))
    expect(await iterator.nextBatch()).toEqual([text('a')])
    expect(await iterator.nextBatch()).toEqual([text('b')])
    await expect(iterator.nextBatch()).rejects.toMatchObject({ code: 'upstream_http' })
  })
})
