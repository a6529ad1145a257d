/**
 * The places a prepared turn (`preflight`) differs inside the turn runner (turn/run-turn.ts): its
 * events are held until a final input adopts it, its model calls are counted (wasted unless
 * adopted), and once run it waits for its final input before anything is stored or closed; one that
 * never got to run leaves nothing behind.
 */
import type { TurnInput } from '../../context/types.js'
import type { ChatMessage } from '../../shared/messages.js'
import { raceAbort } from '../abortable.js'
import type { EmitTurnEvent, TurnEvent } from '../turn/reply-stages.js'
import type { TurnOutcome } from '../turn/turn-outcome.js'
import { createTurnTimer, type TurnTimer } from '../turn/turn-timing.js'
import type { PreflightGate } from './create-preflight-gate.js'

/**
 * A prepared turn's events wait until a final input adopts it; then `onAdopted` gets the final input
 * (stored instead of the early one) and a timer that starts at the adoption, and the held events go
 * out in order, at once, before anything newer.
 */
export function holdUntilAdopted(
  gate: PreflightGate,
  deliver: EmitTurnEvent,
  onAdopted: (input: TurnInput, timer: TurnTimer) => void,
): EmitTurnEvent {
  const held: TurnEvent[] = []
  gate.onAdopt((finalInput, adoptedAt) => {
    const timer = createTurnTimer({
      now: gate.now,
      startedAt: adoptedAt,
      preflightSavedMs: adoptedAt - gate.startedAt,
    })
    onAdopted(finalInput, timer)
    for (const event of held.splice(0)) deliver(event)
  })
  return (event) => {
    if (gate.adopted) deliver(event)
    else held.push(event)
  }
}

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
 * A turn that could not take its lane or lock: true when it is a preparation not adopted yet, which
 * ends without a trace (a lock failure marks it failed, so its final input starts over).
 */
export function endUnstarted(gate: PreflightGate | undefined, signal: AbortSignal): boolean {
  if (!gate || gate.adopted) return false
  gate.failed = !signal.aborted
  return true
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
