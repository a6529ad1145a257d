/**
 * From a raw input to a turn in its lane: the input is validated, the lines observed since the last
 * input join it, its character is settled, and then it either adopts the turn a preflight prepared
 * with these words or starts a new one. A refused input still gets a turn id and an error event, so
 * `generate` and `run` report it the way they report any turn's end.
 */
import { randomUUID } from 'node:crypto'
import { BadRequestError } from '../shared/errors.js'
import type { CharpipeEvent } from '../shared/events.js'
import { resolveCharacter } from './character-runtime.js'
import type { ClusterLink } from './cluster-link.js'
import type { TurnOrigin } from './create-turn-output.js'
import type { EngineContext } from './engine-context.js'
import { createEngineTurnOutput, createTurnHandle, launchTurn } from './launch-turn.js'
import type { PreflightController, StartedTurn } from './preflight/create-preflight-controller.js'
import { renderGroupInput } from './render-group-input.js'
import type { GenerateInput, GenerateOptions } from './types.js'
import { validateGenerateInput } from './validate-generate-input.js'

export interface TurnStarter {
  readonly context: EngineContext
  readonly preflights: PreflightController
  readonly clusterLink: ClusterLink
}

function sessionOf(raw: GenerateInput): string {
  return typeof raw?.session === 'string' && raw.session ? raw.session : 'default'
}

export function startTurn(
  starter: TurnStarter,
  raw: GenerateInput,
  push: (event: CharpipeEvent) => void,
  close: () => void,
  turnOptions: GenerateOptions = {},
  origin?: TurnOrigin,
): StartedTurn {
  const { context, preflights, clusterLink } = starter
  const session = sessionOf(raw)
  const handle = createTurnHandle(session, false)
  const output = createEngineTurnOutput(context, handle.turn, session, { push, close }, origin)
  try {
    if (context.closed) throw new BadRequestError('this charpipe instance is closed')
    const config = context.current.config
    const validated = validateGenerateInput(raw, {
      maxInputChars: config.conversation.max_input_chars,
    })
    // Lines observed since the last input go with this one, and are stored with it.
    const input = renderGroupInput(
      validated,
      context.observedLines.drain(validated.session),
      config.conversation.group,
    )
    output.session = input.session
    resolveCharacter(context, input)
    // The turn prepared from an early transcript with these words becomes this input's reply.
    const adopted = origin ? undefined : preflights.claim(input, { push, close })
    if (adopted) return adopted
    // A turn the server starts by itself (audience, idle) waits its turn: it never cuts a reply.
    const mode = origin ? 'queue' : context.current.config.conversation.on_new_input
    // The server running this session's turn elsewhere stops it; this turn then waits for its lock.
    if (mode === 'interrupt' && context.cluster) clusterLink.announceNewInput(handle)
    launchTurn(context, handle, input, output, mode, turnOptions)
    if (!origin) context.audience?.noteInput(input.session, input.character)
  } catch (error) {
    output.closeWithError(error)
  }
  return { handle, isDone: output.isDone, attach: output.attach }
}

/** An early transcript (`preflight: true`): nothing goes out for it, unless it is refused. */
export function prepareTurn(
  starter: TurnStarter,
  raw: GenerateInput,
  push: (event: CharpipeEvent) => void,
  close: () => void,
): void {
  const { context, preflights } = starter
  try {
    if (context.closed) throw new BadRequestError('this charpipe instance is closed')
    preflights.prepare(raw)
    close()
  } catch (error) {
    createEngineTurnOutput(context, randomUUID(), sessionOf(raw), { push, close }).closeWithError(error)
  }
}
