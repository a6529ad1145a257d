import OpenAI from 'openai'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createOpenAIEmbeddings } from '../memory/long-term/create-openai-embeddings.js'
import { embedHashedNgrams } from './embed-hashed-ngrams.js'
import { type MockModelServer, startMockModelServer } from './start-mock-model-server.js'

function cosine(left: readonly number[], right: readonly number[]): number {
  let dot = 0
  for (let index = 0; index < left.length; index++) dot += (left[index] as number) * (right[index] as number)
  return dot
}

describe('embedHashedNgrams', () => {
  it('is deterministic, of the asked length and of length 1', () => {
    const vector = embedHashedNgrams('I adopted a dog named Biscuit', { dimensions: 64 })
    expect(vector).toEqual(embedHashedNgrams('I adopted a dog named Biscuit', { dimensions: 64 }))
    expect(vector).toHaveLength(64)
    expect(cosine(vector, vector)).toBeCloseTo(1)
    expect(embedHashedNgrams('')).toEqual(new Array(512).fill(0))
  })

  it('puts texts that share words or pieces of words closer than unrelated ones', () => {
    const guitar = embedHashedNgrams('I have been learning to play the guitar')
    expect(cosine(embedHashedNgrams('guitr lessons'), guitar)).toBeGreaterThan(
      cosine(embedHashedNgrams('guitr lessons'), embedHashedNgrams('My sister works as a nurse in Boston')),
    )
    const beijing = embedHashedNgrams('我在北京大学读书')
    expect(cosine(embedHashedNgrams('北京'), beijing)).toBeGreaterThan(
      cosine(embedHashedNgrams('北京'), embedHashedNgrams('周末去爬山吗')),
    )
  })

  it('refuses a dimension count it cannot make', () => {
    expect(() => embedHashedNgrams('x', { dimensions: 0 })).toThrow(/dimensions/)
    expect(() => embedHashedNgrams('x', { dimensions: 1.5 })).toThrow(/dimensions/)
  })
})

describe('the mock model server at /v1/embeddings', () => {
  let server: MockModelServer
  beforeAll(async () => {
    server = await startMockModelServer()
  })
  afterAll(() => server.close())

  it('answers the OpenAI client, in float and in base64 (the SDK default)', async () => {
    const client = createOpenAIEmbeddings({ baseUrl: `${server.url}/v1`, model: 'hashed', batchSize: 2 })
    const vectors = await client.embed(['one cat', 'two cats', 'a car'])
    expect(vectors).toHaveLength(3)
    expect([...(vectors[0] as Float32Array)]).toEqual(
      embedHashedNgrams('one cat').map((value) => Math.fround(value)),
    )
    const sdk = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: 'none' })
    const response = await sdk.embeddings.create({ model: 'hashed', input: 'one cat', dimensions: 32 })
    expect(response.data[0]?.embedding).toHaveLength(32)
    expect(response.data[0]?.embedding[0]).toBeCloseTo(
      embedHashedNgrams('one cat', { dimensions: 32 })[0] as number,
      6,
    )
    expect(server.requests.at(-1)?.body).toMatchObject({ encoding_format: 'base64', dimensions: 32 })
  })

  it('names what is wrong in a bad request', async () => {
    const post = (body: unknown) =>
      fetch(`${server.url}/v1/embeddings`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      })
    for (const [body, message] of [
      [{ model: 'hashed' }, /input/],
      [{ model: 'hashed', input: [1, 2] }, /input/],
      [{ model: 'hashed', input: 'x', dimensions: -3 }, /dimensions/],
      [{ model: 'hashed', input: 'x', encoding_format: 'int8' }, /encoding_format/],
    ] as const) {
      const response = await post(body)
      expect(response.status).toBe(400)
      expect(((await response.json()) as { error: { message: string } }).error.message).toMatch(message)
    }
  })
})
