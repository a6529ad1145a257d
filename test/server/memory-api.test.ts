import { afterEach, describe, expect, it } from 'vitest'
import { startTestServer, type TestServer } from './start-test-server.js'

// biome-ignore lint/suspicious/noExplicitAny: answers are checked field by field with expect
type JsonAnswer = any

let server: TestServer | undefined
afterEach(async () => {
  await server?.stop()
  server = undefined
})

const call = async (method: string, path: string, body?: unknown) => {
  const response = await fetch(`${server!.url}${path}`, {
    method,
    headers: { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  return { status: response.status, body: (await response.json()) as JsonAnswer }
}

describe('memory endpoints', () => {
  it('adds, searches, lists, updates, shows the history of and deletes memories', async () => {
    server = await startTestServer()
    const added = await call('POST', '/api/memory', {
      scope: 'alice',
      text: 'Alice likes green tea',
      speaker: 'Alice',
      time: '2024-05-01T10:00:00Z',
      metadata: { source: 'chat', tags: ['drink'] },
    })
    expect(added.status).toBe(201)
    const id = added.body.id as string
    await call('POST', '/api/memory', { scope: 'alice', text: 'Alice has a cat named Mochi' })
    await call('POST', '/api/memory', { scope: 'bob', text: 'Bob likes green tea too' })

    const search = await call('GET', '/api/memory/search?q=green%20tea&scope=alice&k=5')
    expect(search.status).toBe(200)
    expect(search.body.results).toHaveLength(1)
    expect(search.body.results[0]).toMatchObject({
      id,
      text: 'Alice likes green tea',
      speaker: 'Alice',
      time: '2024-05-01T10:00:00.000Z',
      metadata: { source: 'chat', tags: ['drink'] },
    })
    expect(typeof search.body.results[0].score).toBe('number')

    const list = await call('GET', '/api/memory?scope=alice')
    expect(list.body.memories.map((memory: { text: string }) => memory.text).sort()).toEqual([
      'Alice has a cat named Mochi',
      'Alice likes green tea',
    ])

    const patched = await call('PATCH', `/api/memory/${id}`, { text: 'Alice prefers oolong tea' })
    expect(patched.status).toBe(200)
    expect(patched.body.text).toBe('Alice prefers oolong tea')
    const history = await call('GET', `/api/memory/${id}/history`)
    expect(history.body.changes.map((change: { event: string }) => change.event)).toEqual(['add', 'update'])

    expect((await call('DELETE', `/api/memory/${id}`)).body).toEqual({ deleted: true })
    expect((await call('DELETE', `/api/memory/${id}`)).status).toBe(404)
    expect((await call('PATCH', `/api/memory/${id}`, { text: 'x' })).status).toBe(404)
    // A deleted memory's history stays readable; an id never given is not found, as GET is.
    const afterDelete = await call('GET', `/api/memory/${id}/history`)
    expect(afterDelete.body.changes.map((change: { event: string }) => change.event)).toEqual([
      'add',
      'update',
      'delete',
    ])
    const unknown = await call('GET', '/api/memory/no-such-memory/history')
    expect(unknown.status).toBe(404)
    expect(unknown.body.error.code).toBe('not_found')
  })

  it('adds, lists and removes knowledge documents, found by search', async () => {
    server = await startTestServer()
    const added = await call('POST', '/api/kb', {
      name: 'guide.md',
      text: 'Opening hours are nine to five.\n\nParking is free.',
    })
    expect(added.status).toBe(201)
    expect(added.body.chunks).toBe(2)
    const list = await call('GET', '/api/kb')
    expect(list.body.documents[0]).toMatchObject({ id: added.body.id, name: 'guide.md', chunks: 2 })
    const search = await call('GET', '/api/memory/search?q=parking&scope=anyone')
    expect(search.body.results[0]).toMatchObject({ kind: 'knowledge', sourceName: 'guide.md' })
    expect((await call('DELETE', `/api/kb/${added.body.id}`)).body).toEqual({ deleted: true })
    expect((await call('GET', '/api/kb')).body.documents).toEqual([])
  })

  const badCalls: { name: string; method: string; path: string; body?: unknown; mentions: RegExp }[] = [
    {
      name: 'memory without text',
      method: 'POST',
      path: '/api/memory',
      body: { scope: 'a' },
      mentions: /text/,
    },
    {
      name: 'a time that is not ISO 8601',
      method: 'POST',
      path: '/api/memory',
      body: { text: 'a', time: 'yesterday' },
      mentions: /time/,
    },
    {
      name: 'metadata that is not an object',
      method: 'POST',
      path: '/api/memory',
      body: { text: 'a', metadata: [1] },
      mentions: /metadata/,
    },
    { name: 'a search without q', method: 'GET', path: '/api/memory/search?scope=a', mentions: /q/ },
    {
      name: 'a search with k not a number',
      method: 'GET',
      path: '/api/memory/search?q=a&k=many',
      mentions: /k/,
    },
    {
      name: 'knowledge without a name',
      method: 'POST',
      path: '/api/kb',
      body: { text: 'a' },
      mentions: /name/,
    },
  ]
  it.each(badCalls)('answers $name with bad_request', async ({ method, path, body, mentions }) => {
    server = await startTestServer()
    const answer = await call(method, path, body)
    expect(answer.status).toBe(400)
    expect(answer.body.error.code).toBe('bad_request')
    expect(answer.body.error.message).toMatch(mentions)
  })

  it('answers 503 with a clear error when memory is disabled', async () => {
    server = await startTestServer({ memory: false })
    for (const [method, path] of [
      ['GET', '/api/memory?scope=a'],
      ['GET', '/api/memory/search?q=a'],
      ['POST', '/api/kb'],
    ] as const) {
      const answer = await call(method, path, method === 'POST' ? { name: 'a', text: 'b' } : undefined)
      expect(answer.status).toBe(503)
      expect(answer.body.error.message).toContain('memory.enabled: false')
    }
  })
})
