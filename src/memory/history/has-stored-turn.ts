/**
 * Whether a session's history has a turn: `HistoryStore.hasTurn` where the store has it (no message
 * read), else its messages by `findTurn`. Memory asks it after every remembered turn.
 */
import type { ConversationScope, HistoryStore } from '../types.js'

export async function hasStoredTurn(
  store: HistoryStore,
  scope: ConversationScope,
  turn: string,
): Promise<boolean> {
  if (store.hasTurn) return store.hasTurn(scope, turn)
  return (await store.findTurn(scope, turn)).length > 0
}
