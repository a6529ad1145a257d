/**
 * Which stored memory scopes move, and where, when a store written before scopes were encoded is
 * opened (see `migrateLegacyScope`). Run once by each store's schema migration.
 */
import { migrateLegacyScope } from '../memory-scope-of.js'

export interface ScopeMigrationOptions {
  /**
   * The ids of the characters whose memories were kept under `<id>:<session>`: the configured
   * characters. Without them a scope with `:` is read as a character's and stays.
   */
  characterIds?: readonly string[]
}

/** `[from, to]` for every scope that changes; the mapping is one-to-one. */
export function planScopeMigration(
  scopes: readonly string[],
  options: ScopeMigrationOptions,
): Array<[from: string, to: string]> {
  const moves: Array<[string, string]> = []
  for (const scope of scopes) {
    const next = migrateLegacyScope(scope, options.characterIds)
    if (next !== scope) moves.push([scope, next])
  }
  return moves
}
