/**
 * Embeddings from any OpenAI-compatible `/v1/embeddings` endpoint through the official SDK.
 * Inputs are sent in batches; vectors come back as Float32Array in input order.
 */
import type OpenAI from 'openai'
import { UpstreamHttpError, UpstreamUnreachableError } from '../../shared/errors.js'
import { excerptErrorBody } from '../../shared/excerpt-error-body.js'
import { loadOnFirstUse } from '../../shared/load-on-first-use.js'

/** What the memory store needs from an embeddings model. */
export interface EmbeddingsClient {
  /** Model id; stored beside each vector so a model change does not mix vector spaces. */
  readonly model: string
  embed(texts: string[]): Promise<Float32Array[]>
}

export interface CreateOpenAIEmbeddingsOptions {
  /** API base URL including `/v1`. */
  baseUrl: string
  apiKey?: string
  model: string
  /** Inputs per request. @default 64 */
  batchSize?: number
  /** @default 30000 */
  timeoutMs?: number
  /** Replaces the global fetch (tests). */
  fetch?: typeof fetch
}

export function createOpenAIEmbeddings(options: CreateOpenAIEmbeddingsOptions): EmbeddingsClient {
  if (!options.baseUrl) throw new TypeError('embeddings: base_url is required')
  if (!options.model) throw new TypeError('embeddings: model is required')
  const loadSdk = loadOnFirstUse(async () => {
    const sdk = await import('openai')
    const client = new sdk.default({
      baseURL: options.baseUrl,
      // The SDK refuses an empty key; local servers accept any.
      apiKey: options.apiKey || 'none',
      timeout: options.timeoutMs ?? 30_000,
      maxRetries: 1,
      ...(options.fetch ? { fetch: options.fetch } : {}),
    })
    return { client, sdk: sdk.default }
  })
  const batchSize = options.batchSize ?? 64
  return {
    model: options.model,
    async embed(texts) {
      const vectors: Float32Array[] = []
      for (let start = 0; start < texts.length; start += batchSize) {
        const batch = texts.slice(start, start + batchSize)
        const response = await requestEmbeddings(await loadSdk(), options, batch)
        const ordered = [...response.data].sort((left, right) => left.index - right.index)
        if (ordered.length !== batch.length) {
          throw new UpstreamHttpError(200, `expected ${batch.length} embeddings, got ${ordered.length}`)
        }
        for (const item of ordered) vectors.push(Float32Array.from(item.embedding))
      }
      return vectors
    },
  }
}

async function requestEmbeddings(
  { client, sdk }: { client: OpenAI; sdk: typeof OpenAI },
  options: CreateOpenAIEmbeddingsOptions,
  input: string[],
): Promise<OpenAI.Embeddings.CreateEmbeddingResponse> {
  try {
    return await client.embeddings.create({ model: options.model, input, encoding_format: 'float' })
  } catch (error) {
    if (error instanceof sdk.APIConnectionError) {
      throw new UpstreamUnreachableError(options.baseUrl, { cause: error })
    }
    if (error instanceof sdk.APIError && typeof error.status === 'number') {
      throw new UpstreamHttpError(error.status, excerptErrorBody(error.error), { cause: error })
    }
    throw error
  }
}
