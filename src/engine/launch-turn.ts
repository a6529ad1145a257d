/**
 * One turn's place in its session's lane: its handle, where its events go, and the call to
 * `executeTurn` with the runtime current when it starts. A turn holds that runtime until it ends,
 * so a reload meanwhile releases the old runtime only after its last turn.
 */
import { randomUUID } from 'node:crypto'
import type { TurnInput } from '../context/types.js'
import { characterRuntimeOf } from './character-runtime.js'
import { createTurnOutput, type TurnOrigin, type TurnOutput, type TurnSink } from './create-turn-output.js'
import type { EngineContext } from './engine-context.js'
import { type EngineRuntime, releaseRuntimeParts } from './engine-runtime.js'
import { executeTurn } from './execute-turn.js'
import { openSession } from './open-session.js'
import type { PreflightGate } from './preflight/create-preflight-gate.js'
import type { TurnHandle } from './session-lanes.js'
import type { GenerateOptions } from './types.js'

export function createTurnHandle(session: string, preflight: boolean): TurnHandle {
  return {
    session,
    turn: randomUUID(),
    controller: new AbortController(),
    running: false,
    ended: Promise.resolve(),
    ...(preflight ? { preflight } : {}),
  }
}

export function createEngineTurnOutput(
  context: EngineContext,
  turn: string,
  session: string,
  sink: TurnSink | undefined,
  origin?: TurnOrigin,
): TurnOutput {
  return createTurnOutput({
    bus: context.bus,
    turn,
    session,
    sink,
    ...(origin ? { origin } : {}),
    readDefaultEmotion: () => context.current.config.character.default_emotion,
  })
}

function releaseRuntime(context: EngineContext, view: EngineRuntime): void {
  // A character's view counts its turns on the runtime it was made from.
  const runtime = view.base ?? view
  runtime.activeTurns--
  if (runtime.activeTurns === 0 && context.retired.delete(runtime)) {
    void releaseRuntimeParts(runtime, context.current, context.owned, context.logger)
  }
}

/** Puts a turn in its session's lane and runs it there (the returned handle's `ended` tells when it is over). */
export function launchTurn(
  context: EngineContext,
  handle: TurnHandle,
  input: TurnInput,
  output: TurnOutput,
  mode: 'interrupt' | 'queue',
  turnOptions: GenerateOptions,
  gate?: PreflightGate,
): void {
  const { lanes, parts, pipeline, registry, logger, opened, random } = context
  handle.character = input.character
  const previous = lanes.enter(handle, mode)
  handle.ended = executeTurn({
    handle,
    input,
    previous,
    parts,
    pipeline,
    registry,
    logger,
    emit: output.emit,
    acquireRuntime: () => {
      const runtime = context.current
      // A reload that removed the character meanwhile: the turn ends with bad_request.
      const view = characterRuntimeOf(context, runtime, input.character)
      runtime.activeTurns++
      return view
    },
    releaseRuntime: (view) => releaseRuntime(context, view),
    openSession: (runtime) => openSession({ runtime, session: input.session, opened, random }),
    background: context.background,
    coordinator: context.cluster?.coordinator,
    ...(turnOptions.onModelCall ? { onModelCall: turnOptions.onModelCall } : {}),
    ...(gate ? { preflight: gate } : {}),
  }).finally(() => {
    if (!output.isDone()) output.closeWithError(new Error('the turn ended without a result'))
    lanes.leave(handle)
  })
}
