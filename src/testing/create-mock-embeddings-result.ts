/**
 * The mock model server's `POST /v1/embeddings`: the OpenAI response format, with vectors from the
 * deterministic hashed n-gram embedding (`embedHashedNgrams`), so a memory store configured with
 * embeddings can be tested, and benchmarked, without a model. `dimensions` in the request sets the
 * vector length; `encoding_format: 'base64'` (the OpenAI SDK's own default) is answered as the
 * SDK expects, little-endian float32.
 */
import { defaultHashedDimensions, embedHashedNgrams } from './embed-hashed-ngrams.js'

export interface CreateMockEmbeddingsResultOptions {
  /** The request's parsed JSON body. */
  body: unknown
  /** Model id reported when the request names none. */
  model: string
}

export interface MockEmbeddingsResult {
  status: number
  value: unknown
}

function reject(message: string): MockEmbeddingsResult {
  return { status: 400, value: { error: { message, type: 'invalid_request_error' } } }
}

export function createMockEmbeddingsResult(options: CreateMockEmbeddingsResultOptions): MockEmbeddingsResult {
  const body = options.body as
    | { input?: unknown; model?: unknown; dimensions?: unknown; encoding_format?: unknown }
    | undefined
  if (!body || typeof body !== 'object') return reject('embeddings: request body must be a JSON object')
  const input = typeof body.input === 'string' ? [body.input] : body.input
  if (!Array.isArray(input) || input.length === 0 || input.some((item) => typeof item !== 'string'))
    return reject('embeddings: input must be a string or a non-empty array of strings')
  const dimensions = body.dimensions ?? defaultHashedDimensions
  if (
    typeof dimensions !== 'number' ||
    !Number.isInteger(dimensions) ||
    dimensions < 1 ||
    dimensions > 65_536
  )
    return reject(
      `embeddings: dimensions must be a whole number in [1, 65536], got ${JSON.stringify(dimensions)}`,
    )
  const format = body.encoding_format ?? 'float'
  if (format !== 'float' && format !== 'base64')
    return reject(`embeddings: encoding_format must be "float" or "base64", got ${JSON.stringify(format)}`)
  const data = (input as string[]).map((text, index) => {
    const vector = embedHashedNgrams(text, { dimensions })
    const embedding =
      format === 'base64' ? Buffer.from(Float32Array.from(vector).buffer).toString('base64') : vector
    return { object: 'embedding', index, embedding }
  })
  const tokens = (input as string[]).reduce((total, text) => total + Math.ceil(text.length / 4), 0)
  return {
    status: 200,
    value: {
      object: 'list',
      data,
      model: typeof body.model === 'string' ? body.model : options.model,
      usage: { prompt_tokens: tokens, total_tokens: tokens },
    },
  }
}
