/**
 * Keyword ranking fused with vectors from an OpenAI-compatible `/v1/embeddings`: the mock model
 * server's deterministic hashed n-gram embedding, over real HTTP, so a misspelt word still finds
 * its memory through the pieces of the word both share.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type MockModelServer, startMockModelServer } from '../../testing/start-mock-model-server.js'
import { createOpenAIEmbeddings } from './create-openai-embeddings.js'
import { createSqliteMemoryStore } from './create-sqlite-memory-store.js'

const memories = [
  'I have been learning to play the guitar',
  'My sister works as a nurse in Boston',
  '我喜欢吃巧克力蛋糕',
  'We went hiking in the mountains last weekend',
]

let server: MockModelServer
let folder: string

beforeAll(async () => {
  server = await startMockModelServer()
  folder = mkdtempSync(join(tmpdir(), 'memory-hybrid-'))
})

afterAll(async () => {
  await server.close()
  rmSync(folder, { recursive: true, force: true })
})

describe('hybrid memory search', () => {
  it('finds through the embeddings what the words miss, with scores in [0, 1]', async () => {
    const path = join(folder, 'charpipe.db')
    const embeddings = createOpenAIEmbeddings({ baseUrl: `${server.url}/v1`, model: 'hashed-ngrams' })
    const hybrid = createSqliteMemoryStore({ path, embeddings })
    let time = Date.UTC(2025, 0, 1)
    for (const text of memories) {
      await hybrid.add({ scope: 'u', text, time })
      time += 86_400_000
    }
    const embedded = server.requests.filter((request) => request.path === '/v1/embeddings')
    expect(embedded).toHaveLength(memories.length)
    const hits = await hybrid.search('guitr lessons', { scope: 'u', k: 2 })
    expect(hits[0]?.text).toBe('I have been learning to play the guitar')
    for (const hit of hits) {
      expect(hit.score).toBeGreaterThan(0)
      expect(hit.score).toBeLessThanOrEqual(1)
    }
    // A matching word still puts its memory first.
    expect((await hybrid.search('Where does my sister work?', { scope: 'u', k: 1 }))[0]?.text).toBe(
      'My sister works as a nurse in Boston',
    )
    await hybrid.close()
    const lexical = createSqliteMemoryStore({ path, ranking: { minScore: 0.01 } })
    expect(await lexical.search('guitr lessons', { scope: 'u', k: 2 })).toEqual([])
    await lexical.close()
  })
})
