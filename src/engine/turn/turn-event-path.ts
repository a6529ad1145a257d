/**
 * A turn's event path, assembled here and only here as an ordered list of stages. Every event of
 * the turn passes them in this order, each stage handing it to the next:
 *
 *   1 hold until granted     a turn started ahead of its input holds its events until its grant
 *                            (turn-authorization.ts)
 *   2 close once             at most one `llm_error`, exactly one `llm_done`, nothing after it; the
 *                            runner closes the turn here, and only here (close-turn.ts)
 *   3 time                   the first chunk and the first sentence (turn-timing.ts)
 *   4 share with others      the other characters present hear the reply (share-with-others-present.ts)
 *   5 to bus and sink        completed with session, turn and trigger; to the event bus and the
 *                            caller's sink (turn-output.ts)
 *   6 observe                the library user's turn observers (`createCharpipe({ observers })`)
 *                            see each event as it went out
 *
 * Stages are composed once per turn; per event each is one call.
 */

import type { CharpipeEvent } from '../../shared/events.js'
import { createTurnCloser, type TurnCloser } from '../close-turn.js'
import type { TurnAuthorization } from '../turn-authorization.js'
import { holdUntilGranted } from '../turn-authorization.js'
import type { EmitTurnEvent, TurnEventPathStage } from '../turn-event.js'
import type { TurnTimer } from '../turn-timing.js'
import type { TurnOutput } from './turn-output.js'

type ObserveTurnEvent = (event: CharpipeEvent) => void

export interface TurnEventPath {
  /** Where the runner's events enter (stage 1). */
  emit: EmitTurnEvent
  /** Stage 2, the turn's one close. */
  closer: TurnCloser
}

export interface CreateTurnEventPathOptions {
  authorization: TurnAuthorization
  timer: TurnTimer
  /** Stage 4 (share-with-others-present.ts), or undefined when nobody else is present. */
  share: TurnEventPathStage | undefined
  /** Observers of this turn (stage 6), each already given the turn's identity. */
  observers: readonly ObserveTurnEvent[]
  output: TurnOutput
}

export function createTurnEventPath(options: CreateTurnEventPathOptions): TurnEventPath {
  const { authorization, timer, output, share, observers } = options
  let closer: TurnCloser | undefined
  const stages: TurnEventPathStage[] = [
    (next) => holdUntilGranted(authorization, next),
    (next) => {
      closer = createTurnCloser({ emit: next, readTimer: () => timer })
      return closer.deliver
    },
    (next) => (event) => {
      timer.observe(event)
      next(event)
    },
    ...(share ? [share] : []),
    ...(observers.length > 0 ? [observedAfter(observers)] : []),
  ]
  const emit = stages.reduceRight<EmitTurnEvent>((next, stage) => stage(next), output.emit)
  return { emit, closer: closer! }
}

/** Stage 6 around stage 5: each observer sees the event once the bus and the sink have it. */
function observedAfter(observers: readonly ObserveTurnEvent[]): TurnEventPathStage {
  return (next) => (event) => {
    next(event)
    for (const observe of observers) observe(event as CharpipeEvent)
  }
}
