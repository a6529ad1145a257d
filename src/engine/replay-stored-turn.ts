/**
 * A resend of an input the session already has (the same client id, so the same turn id): the turn
 * is not run again, its stored reply is sent as the turn's text and `llm_done`. A store that cannot
 * say ends the turn with `store_outcome_unknown`, unrun: running it could store the input twice,
 * and an earlier attempt may have stored it, so "not stored" would not be the truth.
 */
import type { TurnInput } from '../context/types.js'
import { silenceSignal } from '../reply/create-silence-gate.js'
import { CharpipeError } from '../shared/errors.js'
import type { TurnCloser } from './close-turn.js'
import { conversationScopeOf } from './conversation-scope-of.js'
import type { EngineRuntime } from './engine-runtime.js'

export interface ReplayStoredTurnOptions {
  runtime: EngineRuntime
  input: TurnInput
  turn: string
  closer: TurnCloser
  /** The turn may end in silence: a stored `[silence]` is replayed as silence, not as text. */
  silence?: boolean
}

/** Whether the turn was found stored (or could not be looked for) and has been closed. */
export async function replayStoredTurn(options: ReplayStoredTurnOptions): Promise<boolean> {
  const { runtime, closer } = options
  const emotion = runtime.config.character.default_emotion
  const empty = { displayText: '', sentences: [], emotion }
  let stored: Awaited<ReturnType<EngineRuntime['historyStore']['findTurn']>>
  try {
    stored = await runtime.historyStore.findTurn(
      conversationScopeOf(runtime, options.input.session),
      options.turn,
    )
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error)
    const failure = new CharpipeError(
      'store_outcome_unknown',
      `whether this input was answered already cannot be read (${reason}); send it again with the same id`,
      { cause: error },
    )
    closer.close({ ...empty, interrupted: false, error: failure }, '')
    return true
  }
  if (stored.length === 0) return false
  const reply = stored.find((message) => message.role === 'assistant')
  const silent = options.silence === true && reply?.content === silenceSignal
  const text = silent ? '' : (reply?.content ?? '')
  // The resend sees what the first answer sent: its thought first, as the turn did.
  if (reply?.thought) closer.deliver({ type: 'llm_thought', text: reply.thought })
  if (text) closer.deliver({ type: 'llm_chunk', text })
  closer.close(
    {
      ...empty,
      emotion: reply?.emotion ?? emotion,
      interrupted: reply?.interrupted === true,
      ...(silent ? { silent } : {}),
    },
    text,
  )
  return true
}
