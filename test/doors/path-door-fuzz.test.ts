/**
 * The routes that take an id in their path, fed generated ids and query values
 * (test/support/fuzzed-inputs.ts: any text encoded, broken percent escapes, dot segments, prototype
 * names, ids longer than a header may be): characters, their pictures and cards, a session's
 * audience and its deletion, stored `/v1/responses`, knowledge and memories. Every answer is a
 * success or a refusal that says why, never a server error; after each batch the server is healthy
 * and the character every batch reads is still there.
 */
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { fuzzedPathSegment, fuzzedQueryValue } from '../support/fuzzed-inputs.js'
import { expectAnswered } from './expect-answered.js'
import { runFuzzBatch } from './run-fuzz-batch.js'
import { sendRequest } from './send-request.js'
import { type FuzzServer, startFuzzServer } from './start-fuzz-server.js'

const numRuns = 100

let fuzz: FuzzServer
beforeAll(async () => {
  fuzz = await startFuzzServer()
})
afterAll(async () => {
  await fuzz?.close()
})

interface PathDoor {
  name: string
  method: 'GET' | 'DELETE'
  /** Who calls it: the admin, or a chat client. */
  token: 'admin' | 'chat'
  path: (id: string, value: string) => string
}

const pathDoors: PathDoor[] = [
  { name: 'GET /api/characters/:id', method: 'GET', token: 'admin', path: (id) => `/api/characters/${id}` },
  {
    name: 'GET /api/characters/:id/avatar',
    method: 'GET',
    token: 'admin',
    path: (id) => `/api/characters/${id}/avatar`,
  },
  {
    name: 'GET /api/characters/:id/card',
    method: 'GET',
    token: 'admin',
    path: (id, value) => `/api/characters/${id}/card?format=${value}`,
  },
  {
    name: 'DELETE /api/characters/:id',
    method: 'DELETE',
    token: 'admin',
    path: (id) => `/api/characters/${id}`,
  },
  {
    name: 'GET /api/sessions/:id/audience',
    method: 'GET',
    token: 'chat',
    path: (id, value) => `/api/sessions/${id}/audience?character=${value}`,
  },
  {
    name: 'DELETE /api/sessions/:id/audience/:message',
    method: 'DELETE',
    token: 'chat',
    path: (id, value) => `/api/sessions/${id}/audience/${value}`,
  },
  {
    name: 'DELETE /api/sessions/:id',
    method: 'DELETE',
    token: 'admin',
    path: (id, value) => `/api/sessions/${id}?character=${value}`,
  },
  { name: 'GET /v1/responses/:id', method: 'GET', token: 'chat', path: (id) => `/v1/responses/${id}` },
  {
    name: 'GET /v1/responses/:id/input_items',
    method: 'GET',
    token: 'chat',
    path: (id, value) => `/v1/responses/${id}/input_items?limit=${value}&order=${value}&after=${value}`,
  },
  { name: 'DELETE /v1/responses/:id', method: 'DELETE', token: 'chat', path: (id) => `/v1/responses/${id}` },
  { name: 'DELETE /api/kb/:id', method: 'DELETE', token: 'admin', path: (id) => `/api/kb/${id}` },
  { name: 'GET /api/memory/:id', method: 'GET', token: 'admin', path: (id) => `/api/memory/${id}` },
  { name: 'DELETE /api/memory/:id', method: 'DELETE', token: 'admin', path: (id) => `/api/memory/${id}` },
]

/** The character every batch reads: still served after each batch. */
async function expectAliceKept(batch: string) {
  const answer = await sendRequest({
    url: `${fuzz.url}/api/characters/alice`,
    method: 'GET',
    headers: { authorization: `Bearer ${fuzz.adminToken}` },
  })
  expect(answer.status, `${batch}: alice is still served (${answer.text.slice(0, 200)})`).toBe(200)
}

describe('fuzzed ids and queries in paths', { timeout: 120_000 }, () => {
  for (const door of pathDoors) {
    it(`${door.name}: answers every generated id and query with a success or a reason`, () =>
      runFuzzBatch(
        fuzz,
        door.name,
        fc.tuple(fuzzedPathSegment, fuzzedQueryValue),
        async ([id, value]) => {
          const token = door.token === 'admin' ? fuzz.adminToken : fuzz.chatToken
          const answer = await sendRequest({
            url: `${fuzz.url}${door.path(id || 'x', value)}`,
            method: door.method,
            headers: { authorization: `Bearer ${token}` },
          })
          // A path too long for the server's header limit is refused by Node itself (431), without a body.
          if (answer.status === 431) return
          expectAnswered(door.name, `${id.slice(0, 100)} ${value.slice(0, 100)}`, answer.status, answer.text)
        },
        { numRuns, after: () => expectAliceKept(door.name) },
      ))
  }
})
