/**
 * What a turn prepared from an early transcript waits on: the final input that adopts it. Until
 * then the turn's events are held (by the turn runner), its tools do not run and nothing is stored;
 * `adopt` hands it the final input and lets everything go, in order, at once.
 */
import type { TurnInput } from '../../context/types.js'
import type { TurnUsage } from '../../shared/events.js'

export type AdoptListener = (input: TurnInput, adoptedAt: number) => void

export interface PreflightGate {
  /** The engine's clock (milliseconds): the adopted turn's timer reads it too. */
  readonly now: () => number
  /** When the preparation started, on that clock. */
  readonly startedAt: number
  readonly adopted: boolean
  /** Resolves when a final input adopts the turn; never when it is dropped (its signal aborts). */
  readonly whenAdopted: Promise<void>
  /** Set by the turn: its preparation failed, so a final input starts over instead of adopting it. */
  failed: boolean
  /** Model requests the preparation sent (wasted when it is not adopted). */
  modelCalls: number
  /** What its model calls cost, when reported. */
  usage?: TurnUsage
  /** The turn registers what adoption does (flush its held events, take the final input). */
  onAdopt(listener: AdoptListener): void
  /** Adopts the prepared turn for `input` (synchronous: held events go out before anything newer). */
  adopt(input: TurnInput): void
}

export function createPreflightGate(now: () => number): PreflightGate {
  let listener: AdoptListener | undefined
  let release: () => void = () => {}
  const whenAdopted = new Promise<void>((resolve) => {
    release = resolve
  })
  const gate: PreflightGate = {
    now,
    startedAt: now(),
    adopted: false,
    whenAdopted,
    failed: false,
    modelCalls: 0,
    onAdopt(next) {
      listener = next
    },
    adopt(input) {
      if (gate.adopted) return
      ;(gate as { adopted: boolean }).adopted = true
      listener?.(input, now())
      release()
    },
  }
  return gate
}
