/**
 * What the engine runs after each stored turn: asks the reset policy and resets the context when it
 * says so. It reads only what the policy needs (a counter for `turns`, the current context for
 * `tokens`, which the policy itself keeps bounded).
 */
import type { HistoryResetPolicy } from '../reset-policy.js'
import type { ConversationScope, HistoryStore } from '../types.js'

export interface ResetHistoryIfNeededOptions {
  store: HistoryStore
  scope: ConversationScope
  policy: HistoryResetPolicy
}

/** Returns whether the context was reset. */
export async function resetHistoryIfNeeded(options: ResetHistoryIfNeededOptions): Promise<boolean> {
  const { store, scope, policy } = options
  if (policy.policy === 'none') return false
  const turns = await store.countTurns(scope)
  const messages = policy.policy === 'tokens' && turns > 0 ? await store.loadRecent(scope, turns) : []
  if (!policy.shouldReset({ turns, messages })) return false
  await store.resetContext(scope)
  return true
}
