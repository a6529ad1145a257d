/**
 * The long-term memory scope of a conversation, one string that names one character talking with
 * one session and no other. A character's memories are kept under `<character id>:<session>`; the
 * default character's under its session id. The parts are percent-encoded where they could be
 * mistaken for the separator (`%` → `%25`, and `:` → `%3A` in the default character's session and in
 * a character id), so the default character's session `nova:alice` (scope `nova%3Aalice`) is never
 * character `nova`'s session `alice` (scope `nova:alice`). A session id without `:` or `%` is its
 * own scope, as memories of the default character have always been kept (and as `POST /api/memory`
 * defaults it).
 */
export interface MemoryScopeInput {
  session: string
  /** The character's stable id; undefined for the default character. */
  character?: string
}

/** `%` and `:` percent-encoded, so the result holds no `:` and decodes to exactly one string. */
function escapeScopePart(part: string): string {
  return part.replace(/[%:]/g, (character) => (character === '%' ? '%25' : '%3A'))
}

export function memoryScopeOf(input: MemoryScopeInput): string {
  return input.character
    ? `${escapeScopePart(input.character)}:${input.session}`
    : escapeScopePart(input.session)
}

/**
 * The scope a memory stored before scopes were encoded belongs under now. Such a scope was
 * `<character>:<session>` or the default character's bare session id, and the two could not be told
 * apart; a prefix naming one of `characterIds` is read as a character, anything else as the
 * default character's session (a connector session such as `onebot:bot:group:1`, for one). Without
 * `characterIds` (a store opened outside a configured server) a scope with `:` is read as a
 * character's and kept.
 */
export function migrateLegacyScope(scope: string, characterIds: readonly string[] | undefined): string {
  const separator = scope.indexOf(':')
  if (separator < 0) return escapeScopePart(scope)
  const prefix = scope.slice(0, separator)
  if (characterIds === undefined || characterIds.includes(prefix))
    return memoryScopeOf({ character: prefix, session: scope.slice(separator + 1) })
  return escapeScopePart(scope)
}
