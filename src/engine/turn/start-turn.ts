/**
 * The engine's one entry, from a raw input to a turn in its lane: the input is validated, the lines
 * observed since the last input join it, its character is settled, and then it either takes the
 * turn prepared for these words (granting it) or starts a new one, born granted. An input that only
 * asks to prepare its turn (an early transcript) is handed to the prepared turns, which start it
 * here too (`startWithheldTurn`), withheld. A refused input still gets a turn id and an error event,
 * so `generate` and `run` report it the way they report any turn's end.
 */
import type { TurnInput } from '../../context/types.js'
import { BadRequestError } from '../../shared/errors.js'
import { resolveCharacter } from '../character-runtime.js'
import type { ClusterLink } from '../cluster-link.js'
import type { EngineContext } from '../engine-context.js'
import { inputLanguageOf, renderGroupInput } from '../render-group-input.js'
import { createTurnHandle } from '../session-lanes.js'
import { lineBudgetOf } from '../session-presence.js'
import type { PreparedTurns, StartedTurn } from '../started-turn.js'
import type { TurnSink } from '../turn-event.js'
import { turnIdOfInput } from '../turn-id-of-input.js'
import type { GenerateInput, GenerateOptions } from '../types.js'
import { maxInputIdLength, validateGenerateInput } from '../validate-generate-input.js'
import { runTurn } from './run-turn.js'
import { createTurnOutput, type TurnOrigin, type TurnOutput } from './turn-output.js'

export interface TurnStarter {
  readonly context: EngineContext
  readonly prepared: PreparedTurns
  readonly clusterLink: ClusterLink
}

/** Where a turn's events go: the engine's bus, and the caller's sink when there is one. */
function createEngineTurnOutput(
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
    readDefaultEmotion: () => context.state.current.config.character.default_emotion,
  })
}

function sessionOf(raw: GenerateInput): string {
  return typeof raw?.session === 'string' && raw.session ? raw.session : 'default'
}

/** The input's own turn id when it carries the client's id (checked again with the rest of it). */
function turnIdOf(raw: GenerateInput): string | undefined {
  const id = raw?.id
  if (typeof id !== 'string' || id === '' || id.length > maxInputIdLength) return undefined
  const character = typeof raw.character === 'string' ? raw.character : undefined
  return turnIdOfInput(sessionOf(raw), character, id)
}

export interface StartTurnOptions
  extends TurnStarter,
    Pick<GenerateOptions, 'onModelCall' | 'onTurnNotStored' | 'source'> {
  /** The input as the caller gave it: checked here. */
  input: GenerateInput
  /** Where the turn's events go, `close` after `llm_done`. */
  sink: TurnSink
  /** What started the turn, when the engine did (audience, idle); absent: the caller's input. */
  origin?: TurnOrigin
  /** The turn's id, when its starter names it (an event's turn); absent: the input's, or a new one. */
  turn?: string
}

export function startTurn(options: StartTurnOptions): StartedTurn {
  const { context, prepared, clusterLink, input: raw, sink, origin } = options
  const session = sessionOf(raw)
  const handle = createTurnHandle(session, false, options.turn ?? turnIdOf(raw), context.clock.now)
  const output = createEngineTurnOutput(context, handle.turn, session, sink, origin)
  try {
    if (context.state.closed) throw new BadRequestError('this charpipe instance is closed')
    // An early transcript only prepares its turn (withheld, `startWithheldTurn`): nothing goes out.
    if (!origin && prepared.takesAhead(raw)) {
      sink.close()
      return { handle, isDone: () => true, attach: () => {} }
    }
    const config = context.state.current.config
    const validated = validateGenerateInput(raw, {
      maxInputChars: config.conversation.max_input_chars,
    })
    resolveCharacter(context, validated)
    // Lines heard since the character's last turn go with this input, and are stored with it.
    const character = validated.character ?? ''
    context.presence.enter(validated.session, character, lineBudgetOf(config))
    const heard = context.presence.drain(
      validated.session,
      character,
      context.state.audience?.isWaiting(validated.session),
    )
    const rendered = renderGroupInput(
      validated,
      heard,
      config.conversation.group,
      inputLanguageOf(config, validated),
    )
    // Whose memory an audience turn from one person is (memory.per_person).
    const input = origin?.speaker ? { ...rendered, audienceSpeaker: origin.speaker } : rendered
    output.session = input.session
    // The turn prepared for these words, granted now, becomes this input's reply.
    const taken = origin ? undefined : prepared.claim(input, sink)
    if (taken) return taken
    // A turn the server starts by itself (audience, idle) waits its turn: it never cuts a reply.
    const mode = origin ? 'queue' : context.state.current.config.conversation.on_new_input
    // The server running this session's turn elsewhere stops it; this turn then waits for its lock.
    if (mode === 'interrupt' && context.cluster && !isResentHere(context, handle)) {
      clusterLink.announceNewInput(handle)
    }
    runTurn({
      engine: context,
      handle,
      input,
      output,
      mode,
      ...(options.onModelCall ? { onModelCall: options.onModelCall } : {}),
      ...(options.onTurnNotStored ? { onTurnNotStored: options.onTurnNotStored } : {}),
      ...(options.source ? { source: options.source } : {}),
    })
    if (!origin) context.state.audience?.noteInput(input.session, input.character)
  } catch (error) {
    output.closeWithError(error)
  }
  return { handle, isDone: output.isDone, attach: output.attach }
}

/** A resend of an input whose turn is still in its lane here: it waits for that turn, stopping nothing. */
function isResentHere(context: EngineContext, handle: StartedTurn['handle']): boolean {
  return context.lanes.turnsOf(handle.session).some((other) => other.turn === handle.turn)
}

/**
 * A turn started ahead of its input (the prepared turns call it): withheld, with no sink until it is
 * granted, queued behind the turns of its lane and never interrupting them.
 */
export function startWithheldTurn(context: EngineContext, input: TurnInput): StartedTurn {
  const handle = createTurnHandle(input.session, true, undefined, context.clock.now)
  const output = createEngineTurnOutput(context, handle.turn, input.session, undefined)
  runTurn({ engine: context, handle, input, output, mode: 'queue' })
  return { handle, isDone: output.isDone, attach: output.attach }
}
