/**
 * An early transcript (`generate` or `run` with `preflight: true`): its turn is prepared in the
 * session's lane and nothing goes out for it, unless the input is refused; then it gets a turn id
 * and its error like any refused input.
 */
import { randomUUID } from 'node:crypto'
import { BadRequestError } from '../../shared/errors.js'
import type { CharpipeEvent } from '../../shared/events.js'
import type { EngineContext } from '../engine-context.js'
import { createEngineTurnOutput, sessionOf } from '../turn/start-turn.js'
import type { GenerateInput } from '../types.js'
import type { PreflightController } from './create-preflight-controller.js'

export interface PrepareTurnOptions {
  context: EngineContext
  preflights: PreflightController
  input: GenerateInput
  push(event: CharpipeEvent): void
  close(): void
}

export function prepareTurn(options: PrepareTurnOptions): void {
  const { context, push, close } = options
  try {
    if (context.closed) throw new BadRequestError('this charpipe instance is closed')
    options.preflights.prepare(options.input)
    close()
  } catch (error) {
    createEngineTurnOutput(context, randomUUID(), sessionOf(options.input), { push, close }).closeWithError(
      error,
    )
  }
}
