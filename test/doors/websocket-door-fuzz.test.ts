/**
 * Every WebSocket frame kind fed generated frames (test/support/fuzzed-inputs.ts): `user_input` (and its
 * preflight), `interrupt`, `observe`, `open`, `audience` and `activity`, each valid frame broken
 * one way per case, over the real engine. The socket stays open, and every refusal is an `error`
 * frame with a message (a turn's failure an `llm_error` with a code and a message), never the
 * server's own failure; after each kind's batch the server answers `/healthz`, its event loop was
 * never held past a safety bound, and no promise was left rejected unhandled.
 */
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openTestSocket, type TestSocket } from '../server/websocket-client.js'
import { type FuzzKind, fuzzedText, refusedKinds } from '../support/fuzzed-inputs.js'
import { type FuzzServer, startFuzzServer } from './start-fuzz-server.js'
import { watchProcessHealth } from './watch-process-health.js'

/** Cases per frame kind: enough to reach every kind of break, few enough for the tier's minute. */
const numRuns = 100

/** `fuzz-session` in a template is replaced by each case's own session. */
const sessionMark = 'fuzz-session'

const frameKinds: { name: string; template: Record<string, unknown> }[] = [
  {
    name: 'user_input',
    template: {
      type: 'user_input',
      session: sessionMark,
      character: 'alice',
      text: 'hello there',
      emotion: 'happy',
      speaker: { id: 'u1', name: 'U' },
      id: 'input-1',
    },
  },
  {
    name: 'user_input (preflight)',
    template: { type: 'user_input', session: sessionMark, text: 'hello there', preflight: true },
  },
  {
    name: 'interrupt',
    template: {
      type: 'interrupt',
      session: sessionMark,
      character: 'alice',
      heard: 'hel',
      clear_queue: true,
    },
  },
  {
    name: 'observe',
    template: {
      type: 'observe',
      session: sessionMark,
      speaker: { id: 'u1', name: 'U' },
      text: 'hello there',
    },
  },
  { name: 'open', template: { type: 'open', session: sessionMark, character: 'alice' } },
  {
    name: 'audience',
    template: {
      type: 'audience',
      session: sessionMark,
      character: 'alice',
      messages: [
        {
          id: 'm1',
          speaker: { id: 'v1', name: 'V', role: 'viewer' },
          text: 'hello there',
          gift: { name: 'rose', value: 1 },
        },
      ],
    },
  },
  { name: 'activity', template: { type: 'activity', session: sessionMark, speaking: true } },
  {
    name: 'say',
    template: {
      type: 'say',
      session: sessionMark,
      character: 'alice',
      text: 'hello there',
      emotion: 'happy',
    },
  },
  {
    name: 'event',
    template: { type: 'event', session: sessionMark, character: 'alice', text: 'it rains', respond: true },
  },
]

/** Sent after each case: its `error` frame says every frame before it was handled. */
const sentinel = '{"type":"fuzz-sentinel"}'

const isSentinelError = (frame: Record<string, unknown>) =>
  frame.type === 'error' && String(frame.message).includes('fuzz-sentinel')

/** A refusal (`error`) or a turn's failure (`llm_error`) that says what is wrong, and is not the server's own. */
function expectToldWhy(frame: Record<string, unknown>, what: string) {
  if (frame.type !== 'error' && frame.type !== 'llm_error') return
  expect(typeof frame.message, `${what}: ${frame.type} has a message (${JSON.stringify(frame)})`).toBe(
    'string',
  )
  expect(String(frame.message).length, `${what}: a reason`).toBeGreaterThan(0)
  expect(String(frame.message), `${what}: a client's error, not the server's`).not.toMatch(
    /see the server log|at .*\.ts:\d+/,
  )
  if (frame.type === 'llm_error') {
    expect(typeof frame.code, `${what}: llm_error has a code`).toBe('string')
    expect(frame.code, `${what}: not an internal failure`).not.toBe('internal')
  }
}

let fuzz: FuzzServer
const casesByKind = new Map<string, Partial<Record<FuzzKind, number>>>()

beforeAll(async () => {
  fuzz = await startFuzzServer()
})

afterAll(async () => {
  await fuzz?.close()
  // Generated cases per frame kind and kind of break, for the record of what the batch covered.
  console.info([...casesByKind].map(([name, kinds]) => `${name}: ${JSON.stringify(kinds)}`).join('\n'))
})

describe('fuzzed WebSocket frames', { timeout: 120_000 }, () => {
  // A case the fuzz found: the session is followed before the frame is handled, and the engine
  // refuses one it cannot keep; that refusal is the client's to read, not the server failing.
  it('answers a session the engine refuses with its reason', async () => {
    const socket = await openTestSocket(`${fuzz.url}/ws`, { authorization: `Bearer ${fuzz.chatToken}` })
    try {
      socket.send({ type: 'open', session: 'a\u0000b', character: 'alice' })
      const error = await socket.waitFor((frame) => frame.type === 'error')
      expect(error).toMatchObject({
        code: 'bad_request',
        message: 'session must not contain a NUL character',
      })
    } finally {
      await socket.close()
    }
  })

  for (const kind of frameKinds) {
    it(`${kind.name}: keeps the socket open and answers every generated frame, or says why not`, async () => {
      const health = watchProcessHealth()
      const socket: TestSocket = await openTestSocket(`${fuzz.url}/ws`, {
        authorization: `Bearer ${fuzz.chatToken}`,
      })
      const closed: { code: number; reason: string }[] = []
      socket.socket.on('close', (code, reason) => closed.push({ code, reason: reason.toString() }))
      let cases = 0
      try {
        await fc.assert(
          fc.asyncProperty(fuzzedText(kind.template), async (sent) => {
            const session = `fuzz-ws-${kind.name.replace(/\W+/g, '-')}-${++cases}`
            const counts = casesByKind.get(kind.name) ?? {}
            counts[sent.kind] = (counts[sent.kind] ?? 0) + 1
            casesByKind.set(kind.name, counts)
            const what = `${kind.name} ← ${sent.kind}: ${sent.text.slice(0, 300)}`
            const from = socket.frames.length
            socket.sendRaw(sent.text.replaceAll(sessionMark, session))
            socket.sendRaw(sentinel)
            await socket.waitFor(isSentinelError, from).catch((error: unknown) => {
              throw new Error(`${what}: the socket ended (${JSON.stringify(closed)}): ${String(error)}`)
            })
            const answered = socket.frames.slice(from)
            for (const frame of answered) expectToldWhy(frame, what)
            if (refusedKinds.has(sent.kind))
              expect(
                answered.filter((frame) => frame.type === 'error').length,
                `${what}: refused, besides the sentinel`,
              ).toBeGreaterThan(1)
          }),
          { numRuns, endOnFailure: true },
        )
        await fuzz.expectHealthyAfter(kind.name, health.stop())
        // Turns that ended after their case: their failures too say why.
        for (const frame of socket.frames) expectToldWhy(frame, `${kind.name} (a turn's end)`)
        expect(closed, `${kind.name}: the socket stayed open`).toEqual([])
      } finally {
        health.stop()
        await socket.close()
      }
    })
  }
})
