/**
 * The doors that change what the server is, fed generated inputs (test/support/fuzzed-inputs.ts) as the chat
 * doors are: `PUT /api/config`, `PUT /api/characters/:id`, `POST /api/characters/import` (a
 * Character Card as JSON) and `POST /api/preview`, each with its valid body broken one way per
 * case. Every answer is a success or a refusal that says why, never a server error; after each
 * batch the server answers `/healthz`, its event loop was never held past the safety bound, no
 * promise was left rejected unhandled, and it still takes a turn and a change of its config.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { makeCardV2 } from '../../src/testing/index.js'
import { fuzzedText } from '../support/fuzzed-inputs.js'
import { expectBodyAnswered } from './expect-answered.js'
import { runFuzzBatch } from './run-fuzz-batch.js'
import { sendRequest } from './send-request.js'
import { type FuzzServer, startFuzzServer } from './start-fuzz-server.js'

/** Cases per door: a config change rewrites the file and applies it, so fewer than the memory doors. */
const numRuns = 60

let fuzz: FuzzServer

beforeAll(async () => {
  fuzz = await startFuzzServer()
})

afterAll(async () => {
  await fuzz?.close()
})

interface BodyDoor {
  name: string
  method: 'POST' | 'PUT'
  path: string
  template: Record<string, unknown>
}

const bodyDoors: BodyDoor[] = [
  {
    name: 'PUT /api/config',
    method: 'PUT',
    path: '/api/config',
    template: {
      characters: { alice: { persona: 'A cheerful guide of the harbour.' } },
      llm: { temperature: 0.4 },
      audience: { min_gap_ms: 0 },
    },
  },
  {
    name: 'PUT /api/characters/:id',
    method: 'PUT',
    path: '/api/characters/bob',
    template: { name: 'Bob', persona: 'A grumpy ferryman.', greeting: 'Tickets, please.' },
  },
  {
    name: 'POST /api/characters/import',
    method: 'POST',
    path: '/api/characters/import',
    template: makeCardV2() as unknown as Record<string, unknown>,
  },
  {
    name: 'POST /api/preview',
    method: 'POST',
    path: '/api/preview',
    template: { session: 'fuzz-preview', character: 'alice', text: 'where is the lighthouse?' },
  },
]

/**
 * After a batch the server still does its work: it takes a change of its config (alice as the
 * batch found her: a generated `{characters: {alice: null}}` removes her, as a merge patch does) and
 * answers a turn with her to its end.
 */
async function expectStillServing(batch: string) {
  const change = await sendRequest({
    url: `${fuzz.url}/api/config`,
    method: 'PUT',
    headers: { authorization: `Bearer ${fuzz.adminToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      characters: { alice: { name: 'Alice', persona: 'A cheerful guide.' } },
      llm: { temperature: 0.5 },
    }),
  })
  expect(change.status, `${batch}: a config change after the batch (${change.text.slice(0, 200)})`).toBe(200)
  const turn = await sendRequest({
    url: `${fuzz.url}/api/chat`,
    method: 'POST',
    headers: { authorization: `Bearer ${fuzz.chatToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({ session: 'fuzz-after', character: 'alice', text: 'hello there' }),
  })
  expect(turn.status, `${batch}: a turn after the batch (${turn.text.slice(0, 200)})`).toBe(200)
  expect(turn.text, `${batch}: the turn ends with its reply`).toContain('event: llm_done')
}

describe('fuzzed config and character doors', { timeout: 180_000 }, () => {
  for (const door of bodyDoors) {
    it(`${door.name}: answers every generated body with a success or a reason`, () =>
      runFuzzBatch(
        fuzz,
        door.name,
        fuzzedText(door.template),
        async (sent) => {
          const answer = await sendRequest({
            url: `${fuzz.url}${door.path}`,
            method: door.method,
            headers: {
              authorization: `Bearer ${fuzz.adminToken}`,
              ...(sent.contentType ? { 'content-type': sent.contentType } : {}),
            },
            body: sent.text,
          })
          expectBodyAnswered(door.name, sent, answer.status, answer.text)
        },
        { numRuns, after: () => expectStillServing(door.name) },
      ))
  }
})
