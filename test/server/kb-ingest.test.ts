/**
 * Knowledge-base text through `POST /api/kb` on the real engine (SQLite): a large document is
 * ingested in slices with the event loop turning between them (other sessions go on meanwhile),
 * and a document over `memory.max_knowledge_chars` is refused naming the limit while smaller ones
 * are still taken.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { createCharpipe } from '../../src/engine/index.js'
import { startTestServer, type TestServer } from './start-test-server.js'

let server: TestServer | undefined
afterEach(async () => {
  await server?.stop()
  server = undefined
})

async function start(memory = '') {
  server = await startTestServer({
    configText: `llm:\n  provider: mock\nstorage:\n  sqlite_path: "{folder}/charpipe.db"\nmemory:\n  enabled: true\n${memory}`,
    createCharpipe: (config, logger) => createCharpipe(config, { logger }),
  })
  return server
}

const postKnowledge = async (name: string, text: string) =>
  server!.server.app.request('/api/kb', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name, text }),
  })

/** How many times the event loop turned while `work` ran (each turn runs the other sessions' work). */
async function countLoopTurns<T>(work: () => Promise<T>): Promise<{ result: T; turns: number }> {
  let turns = 0
  let counting = true
  const spin = () => {
    turns++
    if (counting) setImmediate(spin)
  }
  setImmediate(spin)
  try {
    return { result: await work(), turns }
  } finally {
    counting = false
  }
}

describe('POST /api/kb', () => {
  it('ingests a large document in slices: the event loop keeps turning while it is chunked, indexed and written', async () => {
    await start()
    // Every paragraph its own (the segmenter keeps the terms of texts it has seen: repeated
    // paragraphs would cost next to nothing after the first).
    const paragraph = (index: number) =>
      `Entry ${index}: the lighthouse keeper logs ship ${index * 7919} passing the northern reef at night. 灯塔守护者记录第${index}艘船。\n\n`
    const paragraphs = Array.from({ length: Math.ceil(700_000 / paragraph(0).length) }, (_, index) =>
      paragraph(index),
    )
    const text = `# Harbour log\n\n${paragraphs.join('')}The northern reef is called Gannet Rock.\n`
    const { result, turns } = await countLoopTurns(() => postKnowledge('harbour.md', text))
    expect(result.status).toBe(201)
    const body = (await result.json()) as { id: string; chunks: number }
    expect(body.chunks).toBeGreaterThan(100)
    // All at once the loop turns once (measured: 1); in slices of a few milliseconds it turns
    // between them, fewer times the faster the machine (55 here, 20 on a fast one): the bound
    // tells the two apart without depending on the machine's speed.
    expect(turns).toBeGreaterThan(4)
    const search = await server!.server.app.request(
      `/api/memory/search?q=${encodeURIComponent('Gannet Rock')}&scope=anyone`,
    )
    const hits = ((await search.json()) as { results: { kind: string; sourceName: string }[] }).results
    expect(hits[0]).toMatchObject({ kind: 'knowledge', sourceName: 'harbour.md' })
    const listed = (await (await server!.server.app.request('/api/kb')).json()) as {
      documents: { id: string; chunks: number }[]
    }
    expect(listed.documents).toEqual([expect.objectContaining({ id: body.id, chunks: body.chunks })])
  })

  it('refuses a document over memory.max_knowledge_chars, naming the limit, and still takes smaller ones', async () => {
    await start('  max_knowledge_chars: 1000\n')
    const refused = await postKnowledge('big.md', 'x'.repeat(1001))
    expect(refused.status).toBe(400)
    const error = ((await refused.json()) as { error: { code: string; message: string } }).error
    expect(error.code).toBe('bad_request')
    expect(error.message).toContain(
      '"big.md" has 1001 characters, more than memory.max_knowledge_chars (1000)',
    )
    expect(
      ((await (await server!.server.app.request('/api/kb')).json()) as { documents: unknown[] }).documents,
    ).toEqual([])
    const taken = await postKnowledge('small.md', 'Opening hours are nine to five.')
    expect(taken.status).toBe(201)
  })
})
