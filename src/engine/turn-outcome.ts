/**
 * What a turn ends with, as the runner (turn/run-turn.ts) hands it to the close path (close-turn.ts)
 * and to storage (persist-turn.ts): the reply as far as it got, and whether it completed, was
 * interrupted (and why) or failed. Below the runner, so the parts it calls share it without
 * importing `turn/`.
 */
import type { ProviderAnswer } from '../providers/types.js'
import { CharpipeError } from '../shared/errors.js'
import type { TurnUsage } from '../shared/events.js'
import { scrubSecrets } from '../shared/logger.js'

/** Why a turn was cut short; carried as the AbortSignal's reason. */
export type InterruptReason =
  | { kind: 'interrupt'; heard?: string }
  | { kind: 'new_input' }
  | { kind: 'signal' }
  | { kind: 'consumer' }
  | { kind: 'close' }
  /** A turn started ahead of its input that was never granted (turn-authorization.ts). */
  | { kind: 'not_granted' }

export interface TurnOutcome {
  displayText: string
  emotion: string
  sentences: readonly string[]
  interrupted: boolean
  reason?: InterruptReason
  error?: CharpipeError
  /** Attachment references the pipeline refused (placeholders in the prompt); never stored. */
  refusedAttachments?: ReadonlySet<string>
  /** Summed over the turn's model calls; absent when no call reported usage. */
  usage?: TurnUsage
  /** The provider and model that answered the turn's last model call. */
  answer?: ProviderAnswer
  /** `timed_out`: recall missed `memory.recall_timeout_ms` and the reply went on without memories. */
  memory?: 'timed_out'
  /** The model answered `[silence]` on a turn that allowed it: nothing was said. */
  silent?: true
  /** The character's inner thought (`character.thoughts`): stored with the reply, never spoken. */
  thought?: string
}

export function toCharpipeError(error: unknown): CharpipeError {
  if (CharpipeError.isInstance(error)) return error
  const message = error instanceof Error ? error.message : String(error)
  return new CharpipeError('internal', scrubSecrets(message || 'unexpected failure'), { cause: error })
}

export function readInterruptReason(signal: AbortSignal): InterruptReason {
  const reason = signal.reason as InterruptReason | undefined
  return reason && typeof reason === 'object' && 'kind' in reason ? reason : { kind: 'signal' }
}
