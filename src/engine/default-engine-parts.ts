/**
 * The builtin stages, from the other folders' entry points. Loaded lazily by `createCharpipe` so a
 * caller that replaces every stage does not load SQLite or the provider SDKs.
 */
import type { EngineParts } from './engine-parts.js'

function missing(name: string): never {
  throw new Error(`${name} is not available in this build; pass it in options.parts`)
}

// Filled in as the stages land; each missing one fails with a clear message instead of silently.
export const defaultEngineParts: EngineParts = {
  createProvider: () => missing('the provider factory'),
  createContextPipeline: () => missing('the context pipeline'),
  createModelCapabilities: () => missing('model capabilities'),
  createTokenCounter: () => missing('the token counter'),
  createReplyParser: () => missing('the reply parser'),
  replyParserOptionsFromConfig: () => missing('the reply parser options'),
  applyDisplayRegexRules: (text) => text,
  createHistoryStore: () => missing('the history store factory'),
  createHistoryResetPolicy: () => missing('the history reset policy'),
  createMemoryStore: () => missing('the memory store factory'),
  rememberTurn: () => missing('rememberTurn'),
}
