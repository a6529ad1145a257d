/**
 * Test factory: a context build's options over an in-memory history store, a silent logger and the
 * config given as the user would write it. Used by the tests of the context pipeline and its
 * processors.
 */
import { parseConfig } from '../characters/load-config.js'
import type { CharpipeConfigInput } from '../config/schema.js'
import { createModelCapabilities } from '../context/create-model-capabilities.js'
import { createTokenCounter } from '../context/tokens/create-token-counter.js'
import type { BuildContextOptions, ImageDescriber, ModelCapabilities, TurnInput } from '../context/types.js'
import { createInMemoryHistoryStore } from '../memory/history/in-memory-history-store.js'
import type { HistoryStore, MemoryRetriever } from '../memory/types.js'
import { createLogger } from '../shared/logger.js'

export interface FakeBuildOptionsOverrides {
  config?: CharpipeConfigInput
  input?: Partial<TurnInput>
  history?: HistoryStore
  memory?: MemoryRetriever
  imageDescriber?: ImageDescriber
  capabilities?: Partial<ModelCapabilities>
  timestamp?: number
}

export function createFakeBuildOptions(overrides: FakeBuildOptionsOverrides = {}): BuildContextOptions {
  const { config } = parseConfig(overrides.config ?? {}, { logger: createLogger({ level: 'silent' }) })
  const capabilities = { ...createModelCapabilities(config), ...overrides.capabilities }
  return {
    input: { session: 'default', text: '你好', ...overrides.input },
    config,
    capabilities,
    timestamp: overrides.timestamp ?? Date.UTC(2025, 0, 6, 4, 30),
    services: {
      history: overrides.history ?? createInMemoryHistoryStore(),
      memory: overrides.memory,
      imageDescriber: overrides.imageDescriber,
      tokenCounter: createTokenCounter(capabilities),
      logger: createLogger({ level: 'silent' }),
    },
  }
}

/** Stores `turns` user/assistant pairs in `store` for the default character and `session`. */
export async function storeTurns(
  store: HistoryStore,
  turns: number,
  options: { session?: string; character?: string; startAt?: number } = {},
): Promise<void> {
  const scope = { character: options.character ?? '小助手', session: options.session ?? 'default' }
  const startAt = options.startAt ?? Date.UTC(2025, 0, 1)
  for (let index = 0; index < turns; index++) {
    await store.appendTurn(scope, {
      turn: `t${index}`,
      user: { role: 'user', content: `问题${index}`, createdAt: startAt + index * 60_000 },
      assistant: {
        role: 'assistant',
        content: `回答${index}`,
        emotion: '平静',
        createdAt: startAt + index * 60_000 + 1000,
      },
    })
  }
}
