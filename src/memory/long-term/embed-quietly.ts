/** Vectors for texts about to be stored, or none when there is no client or it fails. */
import type { Logger } from '../../shared/logger.js'
import type { EmbeddingsClient } from './create-openai-embeddings.js'

export async function embedQuietly(
  embeddings: EmbeddingsClient | undefined,
  texts: string[],
  logger: Logger,
): Promise<(Float32Array | undefined)[]> {
  if (!embeddings || texts.length === 0) return texts.map(() => undefined)
  try {
    return await embeddings.embed(texts)
  } catch (error) {
    // The memory is still stored and found by keywords; only its vector is missing.
    logger.warn({ err: error }, 'memory: embeddings failed; storing without vectors')
    return texts.map(() => undefined)
  }
}
