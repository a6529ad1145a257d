/**
 * Memory keeps only what the history keeps, also when turns are replaced while their memories are
 * written. Once a turn's memory write has settled, failed or not (a write past its deadline cannot
 * land later: the PostgreSQL store's transaction refuses itself), the turn and the turn it
 * regenerates are looked up in the history, and one the history no longer has takes its memories
 * with it: a regenerate on another server may have replaced this turn, and forgotten its memories,
 * before this write landed; or the regenerate's own forget could not run (a store away). A
 * regenerate whose own write could not be confirmed (`store_outcome_unknown`) is checked too: its
 * write may have landed and replaced the turn. Such a write may also still be running (its outcome
 * is reported unknown as soon as the read-back fails, before its deadline, and a commit the store
 * has checked against the deadline is applied when the store gets to it): read before it lands, the
 * replaced turn would be found, and its memories kept for good once it lands. So the history is
 * read only once the write is settled (`HistoryStore.settleTurn`: a write of the session in progress
 * has committed or rolled back, and the deadline has passed on the store's clock). A store that
 * does not answer is asked again, in the background (the turn is long over), for as long as the
 * engine is open: given up after a few seconds, a store's restart that took longer (a busy server)
 * left the memory of a turn a regenerate had replaced for good. Once the engine closes, the
 * attempts stop a few seconds later, so that a store gone for good cannot hold the close.
 */

import type { TurnInput } from '../context/types.js'
import { hasStoredTurn } from '../memory/history/has-stored-turn.js'
import { forgetTurnMemories } from '../memory/long-term/remember-turn.js'
import type { ConversationScope, MemoryStore } from '../memory/types.js'
import type { Logger } from '../shared/logger.js'
import { conversationScopeOf } from './conversation-scope-of.js'
import type { EngineRuntime } from './engine-runtime.js'
import { memoryScopesOfTurn } from './memory-target-of-turn.js'

/** The turn remembered (persist-turn.ts). */
export interface ForgetUnkeptMemoriesOptions {
  turn: string
  input: TurnInput
  runtime: EngineRuntime
  logger: Logger
  /**
   * The deadline of the turn's own write when its outcome is unknown (`TurnWriteResult.deadline`):
   * the history is read once that write can no longer land.
   */
  settleBy?: number
  /** Aborted when the engine closes (`BackgroundWork.closing`); absent, attempts stop as if it had. */
  closing?: AbortSignal
}

/** Waits between the attempts (ms), doubling up to `maxDelayMs`. */
const firstDelayMs = 200
const maxDelayMs = 5_000
/** Once the engine is closing, no attempt starts this long after the close was seen (a store's restart). */
const retryForMs = 8_000

export async function forgetUnkeptMemories(
  options: ForgetUnkeptMemoriesOptions,
  store: MemoryStore,
): Promise<void> {
  const turns = [options.turn]
  if (options.input.replaces !== undefined && options.input.replaces !== options.turn)
    turns.push(options.input.replaces)
  // When the attempts first saw the engine closing (within one wait of the close).
  let closingSince: number | undefined
  for (let delay = firstDelayMs; ; delay = Math.min(delay * 2, maxDelayMs)) {
    try {
      await forgetEachUnkept(options, store, turns)
      return
    } catch (error) {
      if (options.closing?.aborted !== false) closingSince ??= Date.now()
      if (closingSince !== undefined && Date.now() + delay - closingSince > retryForMs) {
        options.logger.error(
          { err: error, session: options.input.session, turns },
          'long-term memory may keep a turn the history does not: the stores did not answer',
        )
        return
      }
      await new Promise((resolve) => setTimeout(resolve, delay).unref())
    }
  }
}

/** Resolves once the turn's write whose outcome is unknown can no longer land. */
async function settleWrite(options: ForgetUnkeptMemoriesOptions, scope: ConversationScope, deadline: number) {
  const history = options.runtime.historyStore
  if (history.settleTurn) {
    await history.settleTurn(scope, options.turn, deadline)
    return
  }
  // A store without it has nothing in flight once the deadline has passed.
  const wait = deadline - Date.now()
  if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait))
}

async function forgetEachUnkept(options: ForgetUnkeptMemoriesOptions, store: MemoryStore, turns: string[]) {
  const scope = conversationScopeOf(options.runtime, options.input.session)
  if (options.settleBy !== undefined) await settleWrite(options, scope, options.settleBy)
  for (const turn of turns) {
    if (await hasStoredTurn(options.runtime.historyStore, scope, turn)) continue
    const forgotten: string[] = []
    // The person's memory with memory.per_person, where the turn's memory went.
    for (const memoryScope of memoryScopesOfTurn(options.runtime, options.input))
      forgotten.push(...(await forgetTurnMemories(store, memoryScope, turn)))
    if (forgotten.length > 0)
      options.logger.info(
        { session: options.input.session, turn, forgotten: forgotten.length },
        'forgot the memories of a turn the history no longer has',
      )
  }
}
