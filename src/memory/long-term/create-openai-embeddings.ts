/**
 * Embeddings from any OpenAI-compatible `/v1/embeddings` endpoint through the official SDK.
 * Inputs are sent in batches; vectors come back as Float32Array in input order.
 */
import type OpenAI from 'openai'
import { findOwnError } from '../../providers/convert-to-upstream-error.js'
import { createNodeFetch } from '../../providers/create-node-fetch.js'
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
      // The product's transport: keep-alive, and an answer read whole only up to its bound.
      fetch: options.fetch ?? createNodeFetch().fetch,
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
        vectors.push(...readEmbeddingVectors(response.data as unknown, batch.length))
      }
      return vectors
    },
  }
}

/**
 * The vectors of an answer's `data`, in input order, checked: the endpoint is any server, and a
 * vector of NaN, of strings or of another length than its neighbours would be stored for good and
 * skew every search after it. Anything else is refused naming what is wrong.
 */
/** Far above any embeddings model's (3,072 to 8,192): each vector is stored with its memory. */
const maxEmbeddingDimensions = 16_384

function readEmbeddingVectors(data: unknown, expected: number): Float32Array[] {
  const refuse = (what: string) => new UpstreamHttpError(200, `the embeddings answer ${what}`)
  if (!Array.isArray(data)) throw refuse('has no data array')
  if (data.length !== expected) throw refuse(`has ${data.length} embeddings for ${expected} texts`)
  const vectors: Float32Array[] = new Array(expected)
  let dimensions: number | undefined
  data.forEach((item: { index?: unknown; embedding?: unknown } | null, position) => {
    const index = item?.index ?? position
    if (
      typeof index !== 'number' ||
      !Number.isInteger(index) ||
      index < 0 ||
      index >= expected ||
      vectors[index]
    )
      throw refuse(
        `gives embedding ${position} an index that is not a number from 0 to ${expected - 1}, or one already given`,
      )
    const embedding = item?.embedding
    if (!Array.isArray(embedding) || embedding.length === 0)
      throw refuse(`has no list of numbers for embedding ${index}`)
    if (embedding.length > maxEmbeddingDimensions)
      throw refuse(
        `has ${embedding.length} dimensions in embedding ${index}; at most ${maxEmbeddingDimensions} are taken`,
      )
    // Stored as 32-bit floats: a finite double past ±3.4e38 would become an infinity there.
    if (!embedding.every((value) => typeof value === 'number' && Number.isFinite(Math.fround(value))))
      throw refuse(`has a value that is not a finite 32-bit number in embedding ${index}`)
    if (dimensions !== undefined && embedding.length !== dimensions)
      throw refuse(`has embeddings of ${dimensions} and ${embedding.length} dimensions`)
    dimensions = embedding.length
    vectors[index] = Float32Array.from(embedding as number[])
  })
  return vectors
}

async function requestEmbeddings(
  { client, sdk }: { client: OpenAI; sdk: typeof OpenAI },
  options: CreateOpenAIEmbeddingsOptions,
  input: string[],
): Promise<OpenAI.Embeddings.CreateEmbeddingResponse> {
  try {
    return await client.embeddings.create({ model: options.model, input, encoding_format: 'float' })
  } catch (error) {
    // The transport's own refusal (an answer past its bound), wrapped by the SDK.
    const own = findOwnError(error)
    if (own) throw own
    if (error instanceof sdk.APIConnectionError) {
      throw new UpstreamUnreachableError(options.baseUrl, { cause: error })
    }
    if (error instanceof sdk.APIError && typeof error.status === 'number') {
      throw new UpstreamHttpError(error.status, excerptErrorBody(error.error), { cause: error })
    }
    throw error
  }
}
