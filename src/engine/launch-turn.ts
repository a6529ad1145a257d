/**
 * One turn's place in its session's lane: its handle, where its events go, and the call to
 * `executeTurn` with the runtime current when it starts. A turn holds that runtime until it ends,
 * so a reload meanwhile releases the old runtime only after its last turn.
 */
import { randomUUID } from 'node:crypto'
import { characterIdOf } from '../config/character-id.js'
import type { TurnInput } from '../context/types.js'
import { characterRuntimeOf } from './character-runtime.js'
import { createTurnOutput, type TurnOrigin, type TurnOutput, type TurnSink } from './create-turn-output.js'
import type { EngineContext } from './engine-context.js'
import { type EngineRuntime, releaseRuntimeParts } from './engine-runtime.js'
import { executeTurn } from './execute-turn.js'
import { openSession } from './open-session.js'
import type { PreflightGate } from './preflight/create-preflight-gate.js'
import type { TurnHandle } from './session-lanes.js'
import { lineBudgetOf } from './session-presence.js'
import type { GenerateOptions } from './types.js'

export function createTurnHandle(
  session: string,
  preflight: boolean,
  turn: string = randomUUID(),
): TurnHandle {
  return {
    session,
    turn,
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

/**
 * Group-chat fidelity: the other characters present in the session hear this turn — the person's
 * input (an audience turn's messages they heard already; an idle turn's instruction is not said by
 * anyone) and the character's reply.
 */
function shareWithOthersPresent(
  context: EngineContext,
  input: TurnInput,
  output: TurnOutput,
): TurnOutput['emit'] {
  const self = input.character ?? ''
  if (!context.presence.present(input.session).some((character) => character !== self)) return output.emit
  return (event) => {
    if (event.type === 'llm_done' && event.text.trim() !== '') {
      const config = characterRuntimeOf(context, context.current, input.character).config
      const budget = lineBudgetOf(context.current.config)
      const turn = randomUUID()
      if (output.trigger === 'input') {
        const speaker = input.speaker ?? { id: 'user', name: config.character.user_name }
        const said = { id: `${turn}:input`, speaker, text: input.spokenText ?? input.text }
        context.presence.say(input.session, said, budget, self)
      }
      const character = { id: characterIdOf(config.character), name: config.character.name }
      context.presence.say(input.session, { id: turn, speaker: character, text: event.text }, budget, self)
    }
    output.emit(event)
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
  // A resend of an input whose turn is still here waits for it (and then answers from the store)
  // instead of interrupting it.
  const resend = lanes
    .turnsOf(handle.session, input.character ?? '')
    .some((other) => other.turn === handle.turn)
  const previous = lanes.enter(handle, resend ? 'queue' : mode)
  handle.ended = executeTurn({
    handle,
    input,
    previous,
    parts,
    pipeline,
    registry,
    logger,
    emit: shareWithOthersPresent(context, input, output),
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
    reportNotStored: (event) => {
      context.bus.emit(event)
      turnOptions.onTurnNotStored?.(event)
    },
    ...(gate ? { preflight: gate } : {}),
  }).finally(() => {
    if (!output.isDone()) output.closeWithError(new Error('the turn ended without a result'))
    lanes.leave(handle)
  })
}
