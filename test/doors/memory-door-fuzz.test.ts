/**
 * The memory and people doors of the administration fed generated inputs
 * (test/support/fuzzed-inputs.ts), as the chat doors are (http-door-fuzz.test.ts): `POST
 * /api/memory`, `PATCH /api/memory/:id`, `POST /api/kb`, `POST /api/people/:id/links` and `PATCH
 * /api/people/:id/memories/:memory`, each with its valid body broken one way per case, and the
 * reading and erasing routes with generated ids and queries in their paths. Every answer is a
 * success or a refusal that says why (4xx with an error message), never a server error; after each
 * batch the server answers `/healthz`, its event loop was never held past the safety bound and no
 * promise was left rejected unhandled; and the memories made before the batch are still there.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { fuzzedText } from '../support/fuzzed-inputs.js'
import { expectBodyAnswered } from './expect-answered.js'
import { type PathDoor, runFuzzBatch, runPathBatch } from './run-fuzz-batch.js'
import { type SendRequestOptions, sendRequest } from './send-request.js'
import { type FuzzServer, startFuzzServer } from './start-fuzz-server.js'

/** Cases per door: enough to reach every kind of break, few enough for the tier's minute. */
const numRuns = 100

/** The person the batches work on: the web speaker of the seeding turn. */
const person = 'speaker:fuzz-viewer'
const otherPerson = 'speaker:fuzz-other'

let fuzz: FuzzServer
/** A memory the `PATCH /api/memory/:id` batch edits. */
let memoryId: string
/** A memory of `person` the `PATCH /api/people/:id/memories/:memory` batch edits. */
let personMemoryId: string

const admin = (options: Omit<SendRequestOptions, 'headers'> & { contentType?: string }) =>
  sendRequest({
    ...options,
    headers: {
      authorization: `Bearer ${fuzz.adminToken}`,
      ...(options.contentType === undefined ? {} : { 'content-type': options.contentType }),
    },
  })

const readJson = <T>(text: string) => JSON.parse(text) as T

beforeAll(async () => {
  fuzz = await startFuzzServer(['memory: { per_person: true, min_score: 0 }'])
  const added = await admin({
    url: `${fuzz.url}/api/memory`,
    method: 'POST',
    contentType: 'application/json',
    body: JSON.stringify({ scope: 'fuzz', text: 'the lighthouse keeper feeds the gulls' }),
  })
  expect(added.status, added.text).toBe(201)
  memoryId = readJson<{ id: string }>(added.text).id
  // A turn by a named speaker gives the character a person with a memory of what they said.
  const turn = await sendRequest({
    url: `${fuzz.url}/api/chat`,
    method: 'POST',
    headers: { authorization: `Bearer ${fuzz.chatToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      session: 'fuzz-people',
      text: 'my favourite fruit is durian',
      speaker: { id: 'fuzz-viewer', name: 'Viewer' },
    }),
  })
  expect(turn.status, turn.text).toBe(200)
  personMemoryId = await vi.waitFor(
    async () => {
      const listed = await admin({ url: `${fuzz.url}/api/people/${person}/memories`, method: 'GET' })
      const memories =
        listed.status === 200 ? readJson<{ memories: { id: string }[] }>(listed.text).memories : []
      expect(memories.length, `${person} has a memory: ${listed.text.slice(0, 200)}`).toBeGreaterThan(0)
      return memories[0]!.id
    },
    // The memory is written after the turn: on a loaded machine that can take a while.
    { timeout: 60_000, interval: 20 },
  )
})

afterAll(async () => {
  await fuzz?.close()
})

/** What the batches must leave in place: the seeded memory and the person's memory. */
async function expectSeedsKept(batch: string) {
  const memory = await admin({ url: `${fuzz.url}/api/memory/${memoryId}`, method: 'GET' })
  expect(memory.status, `${batch}: the seeded memory is still there (${memory.text.slice(0, 200)})`).toBe(200)
  const memories = await admin({ url: `${fuzz.url}/api/people/${person}/memories`, method: 'GET' })
  expect(memories.status, `${batch}: ${person} is still known`).toBe(200)
  const ids = readJson<{ memories: { id: string }[] }>(memories.text).memories.map((each) => each.id)
  expect(ids, `${batch}: ${person}'s memory is still there`).toContain(personMemoryId)
}

interface BodyDoor {
  name: string
  method: 'POST' | 'PATCH'
  path: () => string
  template: Record<string, unknown>
}

const bodyDoors: BodyDoor[] = [
  {
    name: 'POST /api/memory',
    method: 'POST',
    path: () => '/api/memory',
    template: {
      scope: 'fuzz',
      text: 'the lighthouse is north of the harbour',
      speaker: 'Viewer',
      time: '2026-01-01T00:00:00Z',
      metadata: { source: 'fuzz' },
    },
  },
  {
    name: 'PATCH /api/memory/:id',
    method: 'PATCH',
    path: () => `/api/memory/${memoryId}`,
    template: {
      text: 'the lighthouse keeper feeds the gulls',
      speaker: 'Keeper',
      time: '2026-01-02T00:00:00Z',
      metadata: { source: 'fuzz' },
    },
  },
  {
    name: 'POST /api/kb',
    method: 'POST',
    path: () => '/api/kb',
    template: { name: 'harbour guide', text: '# Harbour\n\nThe ferry leaves at nine.' },
  },
  {
    name: 'POST /api/people/:id/links',
    method: 'POST',
    path: () => `/api/people/${person}/links`,
    template: { ids: [otherPerson] },
  },
  {
    name: 'PATCH /api/people/:id/memories/:memory',
    method: 'PATCH',
    path: () => `/api/people/${person}/memories/${personMemoryId}`,
    template: { text: 'my favourite fruit is durian' },
  },
]

/** Reading and erasing routes: any id in the path, any query; none of them names a seed. */
const pathDoors: PathDoor[] = [
  { name: 'GET /api/people', method: 'GET', path: (_, value) => `/api/people?character=${value}` },
  { name: 'GET /api/people/:id/memories', method: 'GET', path: (id) => `/api/people/${id}/memories` },
  {
    name: 'GET /api/people/:id/export',
    method: 'GET',
    path: (id, value) => `/api/people/${id}/export?character=${value}`,
  },
  {
    name: 'DELETE /api/people/:id/memories',
    method: 'DELETE',
    path: (id, value) => `/api/people/${id}/memories?history=${value}`,
  },
  {
    name: 'DELETE /api/people/:id/memories/:memory',
    method: 'DELETE',
    path: (id, value) => `/api/people/${id}/memories/${value}`,
  },
  {
    name: 'DELETE /api/people/:id/links/:other',
    method: 'DELETE',
    path: (id, value) => `/api/people/${id}/links/${value}`,
  },
  {
    name: 'GET /api/memory/search',
    method: 'GET',
    path: (id, value) => `/api/memory/search?q=${id}&k=${value}`,
  },
  {
    name: 'GET /api/memory',
    method: 'GET',
    path: (id, value) => `/api/memory?scope=${id}&limit=${value}&offset=${value}`,
  },
  { name: 'GET /api/memory/:id/history', method: 'GET', path: (id) => `/api/memory/${id}/history` },
]

describe('fuzzed memory and people doors', { timeout: 120_000 }, () => {
  for (const door of bodyDoors) {
    it(`${door.name}: answers every generated body with a success or a reason`, () =>
      runFuzzBatch(
        fuzz,
        door.name,
        fuzzedText(door.template),
        async (sent) => {
          const answer = await admin({
            url: `${fuzz.url}${door.path()}`,
            method: door.method,
            ...(sent.contentType ? { contentType: sent.contentType } : {}),
            body: sent.text,
          })
          expectBodyAnswered(door.name, sent, answer.status, answer.text)
        },
        { numRuns, after: () => expectSeedsKept(door.name) },
      ))
  }

  for (const door of pathDoors) {
    it(`${door.name}: answers every generated id and query with a success or a reason`, () =>
      runPathBatch(fuzz, door, fuzz.adminToken, { numRuns, after: () => expectSeedsKept(door.name) }))
  }
})
