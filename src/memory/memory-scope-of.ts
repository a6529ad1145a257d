/**
 * The long-term memory scope of a conversation. The default character keeps the session id, as
 * memories have always been kept (and as `POST /api/memory` defaults it); another character's are
 * kept under `<character id>:<session>`, so one character's memories never reach another's prompt.
 */
export interface MemoryScopeInput {
  session: string
  /** The character's stable id; undefined for the default character. */
  character?: string
}

export function memoryScopeOf(input: MemoryScopeInput): string {
  return input.character ? `${input.character}:${input.session}` : input.session
}
