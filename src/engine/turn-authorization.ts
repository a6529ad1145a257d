/**
 * Every turn's authorization: whether what it says may go out, and what it does may happen. A turn
 * started for an input is born granted; a turn started ahead of its input (an early transcript) is
 * born withheld, runs its model meanwhile, and is either granted by the input it was started for
 * (which it then answers, and is stored with) or aborted. The turn runner waits for it, for every
 * turn alike: its events are held, and neither tools nor the store are reached until it is granted.
 */
import type { TurnInput } from '../context/types.js'
import type { TurnUsage } from '../shared/events.js'
import { raceAbort } from './abortable.js'

export interface TurnAuthorization {
  readonly granted: boolean
  /** Resolves when granted; never when withheld for good (the turn is aborted instead). */
  readonly whenGranted: Promise<void>
  /** When it was granted, on the engine's clock: the turn is timed from here. */
  readonly grantedAt: number
  /** How long the turn ran before it was granted; undefined for a turn born granted. */
  readonly heldMs: number | undefined
  /** The input that granted it, which the turn answers and is stored with; undefined: its own. */
  readonly input: TurnInput | undefined
  /** What the turn spent while withheld (counted by the turn runner). */
  readonly withheld: WithheldSpending
  /** Runs (synchronously) when granted, before anything newer: the held events go out there. */
  onGrant(listener: () => void): void
  /** Grants the turn for `input` (the input it was started ahead of). A second grant does nothing. */
  grant(input: TurnInput): void
}

export interface WithheldSpending {
  /** Model requests sent before the grant. */
  modelCalls: number
  /** What those requests cost, when reported. */
  usage?: TurnUsage
  /** The turn failed before it was granted: whoever would grant it should start over instead. */
  failed: boolean
}

const grantedAlready = Promise.resolve()

/** The authorization of a turn started for its input: granted from the start (`now()`). */
export function createGrantedAuthorization(now: () => number): TurnAuthorization {
  return {
    granted: true,
    whenGranted: grantedAlready,
    grantedAt: now(),
    heldMs: undefined,
    input: undefined,
    withheld: { modelCalls: 0, failed: false },
    onGrant(listener) {
      listener()
    },
    grant() {},
  }
}

/** The authorization of a turn started ahead of its input: withheld until `grant` (times on `now`). */
export function createWithheldAuthorization(now: () => number): TurnAuthorization {
  const createdAt = now()
  const listeners: (() => void)[] = []
  let release: () => void = () => {}
  const whenGranted = new Promise<void>((resolve) => {
    release = resolve
  })
  const state = {
    granted: false,
    whenGranted,
    grantedAt: Number.NaN,
    heldMs: undefined as number | undefined,
    input: undefined as TurnInput | undefined,
    withheld: { modelCalls: 0, failed: false } as WithheldSpending,
    onGrant(listener: () => void) {
      if (state.granted) listener()
      else listeners.push(listener)
    },
    grant(input: TurnInput) {
      if (state.granted) return
      state.granted = true
      state.input = input
      state.grantedAt = now()
      state.heldMs = state.grantedAt - createdAt
      for (const listener of listeners.splice(0)) listener()
      release()
    },
  }
  return state
}

/**
 * Passes events on once the turn is granted; until then holds them, in order, and lets them all
 * go at the grant, before anything newer.
 */
export function holdUntilGranted<Event>(
  authorization: TurnAuthorization,
  deliver: (event: Event) => void,
): (event: Event) => void {
  if (authorization.granted) return deliver
  const held: Event[] = []
  authorization.onGrant(() => {
    for (const event of held.splice(0)) deliver(event)
  })
  return (event) => {
    if (authorization.granted) deliver(event)
    else held.push(event)
  }
}

/**
 * Where the turn runner waits for the grant, before its write: true once granted. A turn that failed
 * or was cut short before it was granted will not be (false at once, noting the failure); one
 * aborted while waiting neither.
 */
export async function awaitGrant(
  authorization: TurnAuthorization,
  ended: { usage?: TurnUsage | undefined; error?: unknown; interrupted: boolean },
  signal: AbortSignal,
): Promise<boolean> {
  if (authorization.granted) return true
  if (ended.usage) authorization.withheld.usage = ended.usage
  if (ended.error || ended.interrupted) {
    authorization.withheld.failed = !ended.interrupted
    return false
  }
  try {
    await raceAbort(authorization.whenGranted, signal)
    return true
  } catch {
    return false
  }
}
