/**
 * The routes that take an id in their path, fed generated ids and query values
 * (test/support/fuzzed-inputs.ts: any text encoded, broken percent escapes, dot segments, prototype
 * names, ids longer than a header may be): characters, their pictures and cards, a session's
 * audience and its deletion, stored `/v1/responses`, knowledge and memories. Every answer is a
 * success or a refusal that says why, never a server error; after each batch the server is healthy
 * and the character every batch reads is still there.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type PathDoor, runPathBatch } from './run-fuzz-batch.js'
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

interface TokenPathDoor extends PathDoor {
  /** Who calls it: the admin, or a chat client. */
  token: 'admin' | 'chat'
}

const pathDoors: TokenPathDoor[] = [
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
      runPathBatch(fuzz, door, door.token === 'admin' ? fuzz.adminToken : fuzz.chatToken, {
        numRuns,
        after: () => expectAliceKept(door.name),
      }))
  }
})
