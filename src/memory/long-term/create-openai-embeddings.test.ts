import { mkdtempSync, rmSync } from 'node:fs'
import { createServer, type IncomingMessage, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { gzipSync } from 'node:zlib'
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { maxAnswerBytes } from '../../providers/create-node-fetch.js'
import { CharpipeError } from '../../shared/errors.js'
import { createOpenAIEmbeddings } from './create-openai-embeddings.js'
import { createSqliteMemoryStore } from './create-sqlite-memory-store.js'

/**
 * A fake embeddings endpoint answering in the real `/v1/embeddings` format. Its "model" maps
 * words to topics, so "kitten" and "cat" land close together without sharing a keyword.
 */
const topics: Record<string, number> = { cat: 0, kitten: 0, feline: 0, car: 1, engine: 1, tea: 2, coffee: 2 }

function embedText(text: string): number[] {
  const vector = [0.01, 0.01, 0.01, 0.01]
  for (const word of text.toLowerCase().match(/[a-z]+/g) ?? []) {
    const topic = topics[word]
    if (topic !== undefined) vector[topic] = (vector[topic] ?? 0) + 1
  }
  return vector
}

async function readBody(request: IncomingMessage): Promise<string> {
  let body = ''
  for await (const chunk of request) body += chunk
  return body
}

/** What the endpoint answers the model `hostile` (set by the property test). */
let hostileAnswer = '{}'
let server: Server
let baseUrl: string
let folder: string
const requests: { authorization?: string; body: { model: string; input: string[] } }[] = []

beforeAll(async () => {
  folder = mkdtempSync(join(tmpdir(), 'memory-embeddings-'))
  server = createServer(async (request, response) => {
    const body = JSON.parse(await readBody(request)) as { model: string; input: string[] | string }
    const input = Array.isArray(body.input) ? body.input : [body.input]
    requests.push({ authorization: request.headers.authorization, body: { model: body.model, input } })
    if (body.model === 'bomb') {
      // A few dozen kilobytes on the wire, past the transport's bound once decompressed.
      response.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' })
      response.end(gzipSync(`{"data":"${' '.repeat(maxAnswerBytes + 1024)}"}`))
      return
    }
    if (body.model === 'hostile') {
      response.writeHead(200, { 'content-type': 'application/json' })
      response.end(hostileAnswer)
      return
    }
    if (request.url !== '/v1/embeddings' || body.model === 'broken') {
      response.writeHead(500, { 'content-type': 'application/json' })
      response.end(JSON.stringify({ error: { message: 'model exploded', type: 'server_error' } }))
      return
    }
    response.writeHead(200, { 'content-type': 'application/json' })
    response.end(
      JSON.stringify({
        object: 'list',
        // Out of order on purpose: clients must sort by `index`.
        data: input
          .map((text, index) => ({ object: 'embedding', index, embedding: embedText(text) }))
          .reverse(),
        model: body.model,
        usage: { prompt_tokens: input.length, total_tokens: input.length },
      }),
    )
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`
})

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve))
  rmSync(folder, { recursive: true, force: true })
})

describe('createOpenAIEmbeddings', () => {
  it('sends batches with the key and returns vectors in input order', async () => {
    requests.length = 0
    const client = createOpenAIEmbeddings({
      baseUrl,
      apiKey: 'sk-test-123456',
      model: 'topic-1',
      batchSize: 2,
    })
    const vectors = await client.embed(['cat', 'car', 'tea'])
    expect(vectors.map((vector) => [...vector].indexOf(Math.max(...vector)))).toEqual([0, 1, 2])
    expect(requests.map((request) => request.body.input)).toEqual([['cat', 'car'], ['tea']])
    expect(requests[0]?.authorization).toBe('Bearer sk-test-123456')
    expect(requests[0]?.body.model).toBe('topic-1')
  })

  it('takes only vectors of finite numbers, one per text, of one length; refuses any other answer naming it', async () => {
    const client = createOpenAIEmbeddings({ baseUrl, apiKey: 'sk-test-123456', model: 'hostile' })
    const value = fc.jsonValue({ maxDepth: 2 })
    const item = fc.record(
      {
        object: fc.constant('embedding'),
        index: fc.oneof(fc.nat(2), value),
        embedding: fc.oneof(fc.array(fc.oneof(fc.double(), value), { maxLength: 4 }), value),
      },
      { requiredKeys: [] },
    )
    const data = fc.oneof(fc.array(item, { maxLength: 3 }), value)
    let refused = 0
    await fc.assert(
      fc.asyncProperty(data, async (given) => {
        hostileAnswer = JSON.stringify({ object: 'list', data: given, model: 'hostile' })
        try {
          const vectors = await client.embed(['cat', 'tea'])
          expect(vectors).toHaveLength(2)
          const length = vectors[0]!.length
          for (const vector of vectors) {
            expect(vector.length).toBe(length)
            expect(length).toBeGreaterThan(0)
            expect([...vector].every(Number.isFinite)).toBe(true)
          }
        } catch (error) {
          refused++
          expect(CharpipeError.isInstance(error), String(error)).toBe(true)
          expect((error as Error).message).toMatch(/the embeddings answer /)
        }
      }),
      { numRuns: 300 },
    )
    expect(refused).toBeGreaterThan(0)
  })

  it('refuses a finite number that a 32-bit float cannot hold, naming the embedding', async () => {
    const client = createOpenAIEmbeddings({ baseUrl, apiKey: 'sk-test-123456', model: 'hostile' })
    // Finite as a double, an infinity once stored as a 32-bit float (a seed of the property found it).
    hostileAnswer = JSON.stringify({
      object: 'list',
      data: [
        { object: 'embedding', index: 0, embedding: [0] },
        { object: 'embedding', index: 1, embedding: [-3.4028235677973366e38] },
      ],
    })
    await expect(client.embed(['cat', 'tea'])).rejects.toThrow(
      'the embeddings answer has a value that is not a finite 32-bit number in embedding 1',
    )
  })

  it('refuses a vector longer than any model gives, before storing it', async () => {
    const client = createOpenAIEmbeddings({ baseUrl, apiKey: 'sk-test-123456', model: 'hostile' })
    hostileAnswer = JSON.stringify({
      object: 'list',
      data: [{ object: 'embedding', index: 0, embedding: new Array(20_000).fill(0.5) }],
    })
    await expect(client.embed(['cat'])).rejects.toThrow(
      'the embeddings answer has 20000 dimensions in embedding 0; at most 16384 are taken',
    )
  })

  it('refuses an answer that inflates past the transport bound, naming it', async () => {
    const client = createOpenAIEmbeddings({ baseUrl, apiKey: 'sk-test-123456', model: 'bomb' })
    const error = await client.embed(['cat']).catch((caught: unknown) => caught)
    expect((error as CharpipeError).code).toBe('upstream_stream')
    expect((error as Error).message).toBe(
      `the upstream's answer passed ${maxAnswerBytes} bytes once decompressed: refused`,
    )
  })

  it('turns an HTTP error into an upstream_http error without the key', async () => {
    const client = createOpenAIEmbeddings({ baseUrl, apiKey: 'sk-secret-value', model: 'broken' })
    const error = await client.embed(['x']).catch((caught: unknown) => caught)
    expect(CharpipeError.isInstance(error)).toBe(true)
    expect((error as CharpipeError).code).toBe('upstream_http')
    expect((error as CharpipeError).status).toBe(500)
    expect((error as Error).message).not.toContain('sk-secret-value')
  })
})

describe('memory store with embeddings', () => {
  it('stores vectors and finds by meaning what keywords miss (fused with BM25)', async () => {
    const embeddings = createOpenAIEmbeddings({ baseUrl, model: 'topic-1' })
    const store = createSqliteMemoryStore({
      path: join(folder, 'vectors.db'),
      embeddings,
      neighbourContext: false,
    })
    await store.add({ scope: 'a', text: 'We adopted a kitten in March.' })
    await store.add({ scope: 'a', text: 'The engine of my old car died.' })
    await store.add({ scope: 'a', text: 'I drink coffee every morning.' })
    const hits = await store.search('Do you have a cat?', { scope: 'a', k: 1 })
    expect(hits[0]?.text).toBe('We adopted a kitten in March.')
    const keywordOnly = createSqliteMemoryStore({ path: join(folder, 'vectors.db') })
    expect(await keywordOnly.search('Do you have a cat?', { scope: 'a', k: 1 })).toEqual([])
    await keywordOnly.close()
    await store.close()
  })

  it('still stores and finds by keywords when the endpoint fails', async () => {
    const embeddings = createOpenAIEmbeddings({ baseUrl, model: 'broken' })
    const store = createSqliteMemoryStore({ path: join(folder, 'broken.db'), embeddings })
    await store.add({ scope: 'a', text: 'My kitten sleeps all day.' })
    expect((await store.search('kitten', { scope: 'a', k: 1 }))[0]?.text).toBe('My kitten sleeps all day.')
    await store.close()
  })
})
