/**
 * Stand-ins until the memory folder exports its own history store factory and reset policies: the
 * store named by `history.store` (built with that folder's store constructors) and the seed 004
 * policies by turns and by tokens.
 */
import type { CharpipeConfig } from '../config/schema.js'
import { createInMemoryHistoryStore } from '../memory/history/in-memory-history-store.js'
import { createPostgresHistoryStore } from '../memory/history/postgres-history-store.js'
import { createRedisHistoryStore } from '../memory/history/redis-history-store.js'
import { createSqliteHistoryStore } from '../memory/history/sqlite-history-store.js'
import type { HistoryStore } from '../memory/types.js'
import type { Logger } from '../shared/logger.js'
import type { HistoryResetPolicy } from './engine-parts.js'

export async function createConfiguredHistoryStore(
  config: CharpipeConfig,
  options: { logger: Logger },
): Promise<HistoryStore> {
  const logger = options.logger.child({ module: 'history' })
  switch (config.history.store) {
    case 'memory':
      return createInMemoryHistoryStore()
    case 'redis':
      return createRedisHistoryStore({ url: config.storage.redis_url, logger })
    case 'postgres':
      return createPostgresHistoryStore({ url: config.storage.postgres_url, logger })
    default:
      return createSqliteHistoryStore({ path: config.storage.sqlite_path, logger })
  }
}

/** Counts CJK characters as one token each and other text by about four characters a token. */
function estimateTokens(text: string): number {
  const cjk = text.match(/[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]/g)?.length ?? 0
  return cjk + Math.ceil((text.length - cjk) / 4)
}

export function createConfiguredResetPolicy(
  reset: CharpipeConfig['history']['reset'],
  countTokens: (text: string) => number = estimateTokens,
): HistoryResetPolicy {
  return {
    shouldReset({ turns, messages }) {
      if (reset.policy === 'turns') return reset.max_turns > 0 && turns >= reset.max_turns
      if (reset.policy === 'tokens') {
        if (reset.max_tokens <= 0) return false
        const total = messages.reduce((sum, message) => sum + countTokens(message.content), 0)
        return total >= reset.max_tokens
      }
      return false
    },
  }
}
