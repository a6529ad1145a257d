import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { type Admission, createAdmission } from '../../admission/index.js'
import type { Charpipe } from '../../engine/types.js'
import type { Logger } from '../../shared/logger.js'
import type { ServerMetrics } from '../create-server-metrics.js'
import { createFrameRateLimiter, createTurnLimiter } from '../create-turn-limiter.js'
import { dispatchFrame } from './dispatch-frame.js'
import type { FrameHandler, FrameType, HandleFrameOptions } from './frame-handler.js'
import type { FrameHandlers } from './frame-handlers.js'
import type { WebSocketConnection } from './websocket-connection.js'

interface FakeConnectionOptions {
  admission?: Admission
  /** What following one more session answers (a reason: too many). */
  followRefusal?: string
  framesPerSecond?: number
}

/** A connection whose client is a list of frames and whose log is a list of messages. */
function createFakeConnection(options: FakeConnectionOptions = {}) {
  const sent: Record<string, unknown>[] = []
  const logged: string[] = []
  let time = 0
  const limits = {
    frames_per_second: options.framesPerSecond ?? 1000,
    turns_per_minute: 100,
    concurrent_turns: 1,
  }
  const logger = { error: (_fields: unknown, message: string) => void logged.push(message) }
  const connection: WebSocketConnection = {
    // The handlers of these tests are the test's own; the engine is never reached.
    charpipe: {} as Charpipe,
    metrics: {} as ServerMetrics,
    logger: logger as unknown as Logger,
    admin: false,
    clientKey: undefined,
    sessionOwners: undefined,
    admission: options.admission ?? createAdmission(),
    caller: { kind: 'client' },
    readMaxFrameBytes: () => 4096,
    readLimits: () => limits,
    frames: createFrameRateLimiter(
      () => limits.frames_per_second,
      () => time,
    ),
    turns: createTurnLimiter({ readLimits: () => limits, now: () => time }),
    closed: new AbortController().signal,
    ownTurns: new Map(),
    drops: { count: 0, noticedAt: Number.NEGATIVE_INFINITY },
    now: () => time,
    audience: {
      follow: () => options.followRefusal,
      send: () => {},
      reportActivity: () => {},
      close: () => {},
    },
    send: (payload) => void sent.push(payload as Record<string, unknown>),
    sendEvent: (event) => void sent.push({ ...event }),
  }
  return {
    connection,
    sent,
    logged,
    advance: (milliseconds: number) => {
      time += milliseconds
    },
  }
}

/** A registration for `interrupt` frames that records what reached its handler. */
function createRecordingHandler(overrides: Partial<FrameHandler<'interrupt'>> = {}): {
  handler: FrameHandler<'interrupt'>
  handled: HandleFrameOptions<'interrupt'>[]
} {
  const handled: HandleFrameOptions<'interrupt'>[] = []
  return {
    handled,
    handler: { doors: ['ws_interrupt'], handle: (options) => void handled.push(options), ...overrides },
  }
}

const interruptFrame = JSON.stringify({ type: 'interrupt', session: 'room' })
const dispatch = (connection: WebSocketConnection, data: unknown, handlers: Partial<FrameHandlers>) =>
  dispatchFrame({ connection, data, handlers })

describe('dispatchFrame', () => {
  it('hands a parsed, admitted frame to its kind’s handler with the session it entered', () => {
    const { connection, sent } = createFakeConnection()
    const { handler, handled } = createRecordingHandler()
    dispatch(connection, interruptFrame, { interrupt: handler })
    expect(sent).toEqual([])
    expect(handled).toHaveLength(1)
    expect(handled[0]).toMatchObject({
      named: 'room',
      entered: { session: 'room' },
      frame: { type: 'interrupt' },
    })
  })

  it('refuses a kind with no handler, and one whose door is not a WebSocket door, saying why', () => {
    const { connection, sent } = createFakeConnection()
    const { handler, handled } = createRecordingHandler({ doors: ['http_chat'] })
    dispatch(connection, interruptFrame, {})
    dispatch(connection, interruptFrame, { interrupt: handler })
    expect(handled).toEqual([])
    expect(sent).toEqual([
      {
        type: 'error',
        code: 'bad_request',
        session: 'room',
        message: 'type: no handler for interrupt frames',
      },
      {
        type: 'error',
        code: 'bad_request',
        session: 'room',
        message: 'type: interrupt frames have no WebSocket door',
      },
    ])
  })

  it('a frame that does not parse is refused before any handler', () => {
    const { connection, sent } = createFakeConnection()
    const { handler, handled } = createRecordingHandler()
    dispatch(connection, '{"type":"interrupt","heard":5}', { interrupt: handler })
    expect(handled).toEqual([])
    expect(sent).toMatchObject([
      { type: 'error', code: 'bad_request', message: expect.stringContaining('interrupt frame:') },
    ])
  })

  it('what a handler throws or rejects with is logged and told as internal; the connection goes on', async () => {
    for (const handle of [
      () => {
        throw new Error('boom')
      },
      () => Promise.reject(new Error('boom')),
    ]) {
      const { connection, sent, logged } = createFakeConnection()
      const { handler } = createRecordingHandler({ handle })
      expect(() => dispatch(connection, interruptFrame, { interrupt: handler })).not.toThrow()
      await Promise.resolve()
      expect(logged).toEqual(['a websocket frame failed'])
      expect(sent).toEqual([
        { type: 'error', code: 'internal', message: 'the frame failed; see the server log' },
      ])
    }
  })

  it('a budget refused tells its reason; a budget taken is released when the admission refuses', () => {
    const refusing: Admission = {
      ...createAdmission(),
      admit: () => ({ ok: false, code: 'forbidden', reason: 'not your session' }),
    }
    const { connection, sent } = createFakeConnection({ admission: refusing })
    let released = 0
    const { handler, handled } = createRecordingHandler({
      budget: () => ({ ok: true, release: () => void released++ }),
    })
    dispatch(connection, interruptFrame, { interrupt: handler })
    expect(released).toBe(1)
    const { handler: spent } = createRecordingHandler({
      budget: () => ({ ok: false, message: 'too many turns' }),
    })
    dispatch(connection, interruptFrame, { interrupt: spent })
    expect(handled).toEqual([])
    expect(sent).toEqual([
      { type: 'error', code: 'forbidden', session: 'room', message: 'not your session' },
      { type: 'error', code: 'bad_request', session: 'room', message: 'too many turns' },
    ])
  })

  it('a kind that needs a follow is refused when the connection follows too many sessions', () => {
    const { connection, sent } = createFakeConnection({ followRefusal: 'follows 32 sessions' })
    const follows = createRecordingHandler({ needsFollow: true })
    const other = createRecordingHandler()
    dispatch(connection, interruptFrame, { interrupt: follows.handler })
    dispatch(connection, interruptFrame, { interrupt: other.handler })
    expect(follows.handled).toEqual([])
    expect(other.handled).toHaveLength(1)
    expect(sent).toEqual([
      { type: 'error', code: 'rate_limited', session: 'room', message: 'follows 32 sessions' },
    ])
  })

  it('past the frame rate, frames are dropped and the client told at most once a second', () => {
    const { connection, sent, advance } = createFakeConnection({ framesPerSecond: 1 })
    const { handler, handled } = createRecordingHandler()
    for (let index = 0; index < 5; index++) dispatch(connection, interruptFrame, { interrupt: handler })
    advance(1000)
    dispatch(connection, interruptFrame, { interrupt: handler })
    dispatch(connection, interruptFrame, { interrupt: handler })
    // A burst of twice the rate, then one more a second.
    expect(handled).toHaveLength(3)
    expect(sent.map((frame) => frame.message)).toEqual([
      'too many frames: at most 1 a second (server.limits.frames_per_second); 1 dropped',
      'too many frames: at most 1 a second (server.limits.frames_per_second); 3 dropped',
    ])
  })

  it('nothing a frame carries throws past the dispatcher: each gets its handler or one error frame', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.json(), fc.anything(), fc.constant(interruptFrame)), (data) => {
        const { connection, sent } = createFakeConnection()
        let calls = 0
        const throwing = {
          doors: ['ws_interrupt'],
          handle: () => {
            calls++
            throw new Error('boom')
          },
        } as unknown as FrameHandler<FrameType>
        const handlers = Object.fromEntries(
          ['user_input', 'observe', 'interrupt', 'open', 'audience', 'activity'].map((type) => [
            type,
            throwing,
          ]),
        ) as unknown as FrameHandlers
        expect(() => dispatch(connection, data, handlers)).not.toThrow()
        expect(sent).toHaveLength(1)
        expect(sent[0]?.type).toBe('error')
        expect(sent[0]?.code).toBe(calls === 1 ? 'internal' : 'bad_request')
      }),
    )
  })
})
