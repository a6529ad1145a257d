export { type CharpipeConfigSource, type CreateCharpipeOptions, createCharpipe } from './create-charpipe.js'
export type {
  CharpipeWithDeprecatedMembers,
  DeprecatedCharpipeMembers,
} from './deprecated-charpipe-members.js'
export type { EngineParts, RememberTurnInput } from './engine-parts.js'
export type { ProviderOption } from './engine-runtime.js'
export type * from './types.js'
