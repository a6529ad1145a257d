/**
 * The HTTP doors fed generated inputs (test/support/fuzzed-inputs.ts): `/api/chat`, a session's audience, open,
 * observe and messages routes, `/v1/chat/completions` and `/v1/responses`, each with its valid
 * body broken one way per case, over the real engine. Every answer is a success or a refusal that
 * says why (4xx with an error message), never a server error; after each door's batch the server
 * answers `/healthz`, its event loop was never held past a safety bound, and no promise was left
 * rejected unhandled.
 */
import fc from 'fast-check'
import { afterAll, beforeAll, describe, it } from 'vitest'
import { type FuzzKind, fuzzedPathSegment, fuzzedText } from '../support/fuzzed-inputs.js'
import { expectAnswered, expectBodyAnswered } from './expect-answered.js'
import { sendRequest } from './send-request.js'
import { type FuzzServer, startFuzzServer } from './start-fuzz-server.js'
import { watchProcessHealth } from './watch-process-health.js'

/** Cases per door: enough to reach every kind of break, few enough for the tier's minute. */
const numRuns = 100

interface HttpDoor {
  name: string
  /** The path for one case (`session` is the case's own, so history never piles up across cases). */
  path: (session: string) => string
  template: Record<string, unknown>
}

/** `fuzz-session` in a template is replaced by each case's own session. */
const sessionMark = 'fuzz-session'

const httpDoors: HttpDoor[] = [
  {
    name: 'POST /api/chat',
    path: () => '/api/chat',
    template: {
      session: sessionMark,
      character: 'alice',
      text: 'hello there',
      emotion: 'happy',
      speaker: { id: 'u1', name: 'U' },
      id: 'input-1',
    },
  },
  {
    name: 'POST /api/sessions/:id/audience',
    path: (session) => `/api/sessions/${session}/audience`,
    template: {
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
  {
    name: 'POST /api/sessions/:id/open',
    path: (session) => `/api/sessions/${session}/open`,
    template: { character: 'alice' },
  },
  {
    name: 'POST /api/sessions/:id/say',
    path: (session) => `/api/sessions/${session}/say`,
    template: { character: 'alice', text: 'hello there', emotion: 'happy' },
  },
  {
    name: 'POST /api/sessions/:id/events',
    path: (session) => `/api/sessions/${session}/events`,
    template: { character: 'alice', text: 'it rains', respond: true },
  },
  {
    name: 'POST /api/sessions/:id/observe',
    path: (session) => `/api/sessions/${session}/observe`,
    template: { speaker: { id: 'u1', name: 'U' }, text: 'hello there' },
  },
  {
    name: 'POST /v1/chat/completions',
    path: () => '/v1/chat/completions',
    template: {
      model: 'alice',
      stream: true,
      stream_options: { include_usage: true },
      user: sessionMark,
      temperature: 0.5,
      max_tokens: 50,
      messages: [
        { role: 'system', content: 'be brief' },
        { role: 'user', content: [{ type: 'text', text: 'hello there' }] },
      ],
    },
  },
  {
    name: 'POST /v1/responses',
    path: () => '/v1/responses',
    template: {
      model: 'alice',
      stream: true,
      user: sessionMark,
      instructions: 'be brief',
      input: [{ role: 'user', content: [{ type: 'input_text', text: 'hello there' }] }],
    },
  },
]

let fuzz: FuzzServer
const casesByDoor = new Map<string, Partial<Record<FuzzKind | 'path', number>>>()

beforeAll(async () => {
  fuzz = await startFuzzServer()
})

afterAll(async () => {
  await fuzz?.close()
  // Generated cases per door and kind, for the record of what the batch covered.
  console.info([...casesByDoor].map(([door, kinds]) => `${door}: ${JSON.stringify(kinds)}`).join('\n'))
})

const count = (door: string, kind: FuzzKind | 'path') => {
  const kinds = casesByDoor.get(door) ?? {}
  kinds[kind] = (kinds[kind] ?? 0) + 1
  casesByDoor.set(door, kinds)
}

describe('fuzzed HTTP doors', { timeout: 120_000 }, () => {
  for (const door of httpDoors) {
    it(`${door.name}: answers every generated body with a success or a reason`, async () => {
      const health = watchProcessHealth()
      let cases = 0
      try {
        await fc.assert(
          fc.asyncProperty(fuzzedText(door.template), async (sent) => {
            const session = `fuzz-${door.name.replace(/\W+/g, '-')}-${++cases}`
            count(door.name, sent.kind)
            const answer = await sendRequest({
              url: `${fuzz.url}${door.path(session)}`,
              method: 'POST',
              headers: {
                authorization: `Bearer ${fuzz.chatToken}`,
                ...(sent.contentType ? { 'content-type': sent.contentType } : {}),
                'x-session-id': session,
              },
              body: sent.text.replaceAll(sessionMark, session),
            })
            expectBodyAnswered(door.name, sent, answer.status, answer.text)
          }),
          { numRuns, endOnFailure: true },
        )
        await fuzz.expectHealthyAfter(door.name, health.stop())
      } finally {
        health.stop()
      }
    })
  }

  it('GET /api/sessions/:id/messages: answers every generated session id and query with a success or a reason', async () => {
    const health = watchProcessHealth()
    const name = 'GET /api/sessions/:id/messages'
    const query = fc.oneof(
      fc.constant(''),
      fc.string({ maxLength: 40 }).map((character) => `?character=${encodeURIComponent(character)}`),
      fc.constantFrom('?character=%', '?character=alice&character=bob', '?__proto__=1', '?limit=-1&before=x'),
    )
    try {
      await fc.assert(
        fc.asyncProperty(fuzzedPathSegment, query, async (id, search) => {
          count(name, 'path')
          const answer = await sendRequest({
            url: `${fuzz.url}/api/sessions/${id || 'x'}/messages${search}`,
            method: 'GET',
            headers: { authorization: `Bearer ${fuzz.chatToken}` },
          })
          // A path too long for the server's header limit is refused by Node itself (431), without a body.
          if (answer.status === 431) return
          expectAnswered(name, `${id.slice(0, 100)}${search}`, answer.status, answer.text)
        }),
        { numRuns, endOnFailure: true },
      )
      await fuzz.expectHealthyAfter(name, health.stop())
    } finally {
      health.stop()
    }
  })
})
