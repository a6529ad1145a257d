/** Redis of the cluster failing or out of time, as the `store_unavailable` clients already know. */
import { StoreUnavailableError } from '../shared/errors.js'
import { scrubSecrets } from '../shared/logger.js'

export function toClusterStoreError(error: unknown, doing: string): StoreUnavailableError {
  if (error instanceof StoreUnavailableError) return error
  const message = error instanceof Error ? error.message : String(error)
  const timedOut = /timed? ?out/i.test(message)
  return new StoreUnavailableError(
    `the cluster's Redis is unavailable (${doing}): ${scrubSecrets(message)}`,
    {
      store: 'cluster',
      timedOut,
      cause: error,
    },
  )
}
