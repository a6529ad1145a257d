/**
 * The history scope of a session with a character: where its turns are stored (persist-turn.ts),
 * read back (replay-stored-turn.ts) and greeted (open-session.ts).
 */
import { characterIdOf } from '../config/character-id.js'
import type { CharpipeConfig } from '../config/schema.js'
import type { ConversationScope } from '../memory/types.js'

/** `runtime`: the character's runtime, of which only its config names the scope. */
export function conversationScopeOf(
  runtime: { readonly config: CharpipeConfig },
  session: string,
): ConversationScope {
  return { character: characterIdOf(runtime.config.character), session }
}
