/**
 * The two places a prepared turn (`preflight`) differs inside `executeTurn`: its model calls are
 * counted (wasted unless adopted), and once run it waits for its final input before anything is
 * stored or closed.
 */
import type { ChatMessage } from '../../shared/messages.js'
import { raceAbort } from '../abortable.js'
import type { TurnOutcome } from '../run-turn.js'
import type { PreflightGate } from './create-preflight-gate.js'

/** Passes each model call on, counting those of a prepared turn (wasted unless it is adopted). */
export function countModelCalls(
  gate: PreflightGate | undefined,
  onModelCall: ((messages: readonly ChatMessage[]) => void) | undefined,
) {
  return (messages: readonly ChatMessage[]) => {
    if (gate && !gate.adopted) gate.modelCalls++
    onModelCall?.(messages)
  }
}

/**
 * A prepared turn that ran to its end waits for its final input before it is stored and closed.
 * False when it will not be adopted: it failed (a final input starts over) or was dropped.
 */
export async function awaitAdoption(gate: PreflightGate, outcome: TurnOutcome, signal: AbortSignal) {
  if (gate.adopted) return true
  gate.usage = outcome.usage
  if (outcome.error || outcome.interrupted) {
    gate.failed = !outcome.interrupted
    return false
  }
  try {
    await raceAbort(gate.whenAdopted, signal)
    return true
  } catch {
    return false
  }
}
