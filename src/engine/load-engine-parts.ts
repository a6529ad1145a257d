/**
 * The stages one engine runs a turn with: those the caller replaced, the builtin ones for the rest.
 * Kept apart so the builtin stages (SQLite, the provider SDKs) load only when some are needed.
 */
import type { EngineParts } from './engine-parts.js'

const partNames = [
  'createProvider',
  'createContextPipeline',
  'createModelCapabilities',
  'createTokenCounter',
  'createReplyParser',
  'replyParserOptionsFromConfig',
  'applyDisplayRegexRules',
  'createHistoryStore',
  'createHistoryResetPolicy',
  'createMemoryStore',
  'rememberTurn',
] as const satisfies readonly (keyof EngineParts)[]

/** The builtin stages are loaded only when some are not replaced (they pull in SQLite and the SDKs). */
export async function loadEngineParts(overrides: Partial<EngineParts> = {}): Promise<EngineParts> {
  if (partNames.every((name) => typeof overrides[name] === 'function')) return overrides as EngineParts
  const { defaultEngineParts } = await import('./default-engine-parts.js')
  return { ...defaultEngineParts, ...overrides }
}
