/**
 * Where a person's memories are kept for one character: `~person:<character>:<person id>` (the
 * default character's part empty). `~` cannot start a character id and `:` never appears in the
 * default character's conversation scopes, so no conversation's scope (see `memoryScopeOf`) is ever
 * a person's. The links between a character's person ids are kept beside them, under
 * `~people-links:<character>`, so they live, and are backed up, with the memories.
 */

export interface PersonScopeInput {
  /** The character's stable id; undefined for the default character. */
  character?: string
  person: string
}

/** The scope prefix every person of one character shares. */
export function peopleScopePrefixOf(character: string | undefined): string {
  return `~person:${character ?? ''}:`
}

export function personScopeOf(input: PersonScopeInput): string {
  return `${peopleScopePrefixOf(input.character)}${input.person}`
}

/** The person id a person scope of `character` names, or undefined when it is not one. */
export function readPersonScope(scope: string, character: string | undefined): string | undefined {
  const prefix = peopleScopePrefixOf(character)
  return scope.startsWith(prefix) ? scope.slice(prefix.length) : undefined
}

export function peopleLinksScopeOf(character: string | undefined): string {
  return `~people-links:${character ?? ''}`
}
