/**
 * Starts the turn of an OpenAI-compatible request: its events, an abort that ends it as interrupted
 * (a client that hangs up is a barge-in), and its token counts, the model's own when it reports
 * them, else the messages sent and the reply estimated.
 */
import type { Context } from 'hono'
import type { GenerateInput } from '../../engine/types.js'
import type { CharpipeEvent, LlmDoneEvent } from '../../shared/events.js'
import { countMessageTokens, countTokens } from '../count-tokens.js'
import type { ServerDependencies } from '../server-dependencies.js'
import { streamTurn } from '../stream-turn.js'

export interface TurnTokenCounts {
  prompt: number
  completion: number
  /** Prompt tokens the provider served from its cache, when it says. */
  cached?: number
}

export interface StartOpenAITurnResult {
  events: AsyncIterator<CharpipeEvent>
  /** Ends the turn as interrupted: a barge-in, stored as far as the client was sent (`readSent`). */
  interrupt(): void
  /** Ends the turn as interrupted, as far as it was spoken. */
  controller: AbortController
  countTokens(done: LlmDoneEvent): TurnTokenCounts
}

export interface StartOpenAITurnOptions {
  /** The reply's text the client has been sent so far: what a barge-in stores. */
  readSent?: () => string
}

export function startOpenAITurn(
  context: Context,
  dependencies: ServerDependencies,
  input: GenerateInput,
  options: StartOpenAITurnOptions = {},
): StartOpenAITurnResult {
  const controller = new AbortController()
  const interrupt = () => {
    if (controller.signal.aborted) return
    const { readSent } = options
    controller.abort(readSent ? { heard: readSent() } : undefined)
  }
  // A client that hangs up ends the turn too.
  context.req.raw.signal.addEventListener('abort', interrupt, { once: true })
  // The prompt as sent, counted only when the model reports no usage of its own.
  let countedPrompt = 0
  const events = streamTurn({
    charpipe: dependencies.charpipe,
    input,
    signal: controller.signal,
    metrics: dependencies.metrics,
    endpoint: 'openai',
    onModelCall: (messages) => {
      countedPrompt += countMessageTokens(messages)
    },
  })[Symbol.asyncIterator]()
  return {
    events,
    interrupt,
    controller,
    countTokens: (done) => ({
      prompt: done.usage?.prompt_tokens ?? countedPrompt,
      completion: done.usage?.completion_tokens ?? countTokens(done.text),
      ...(done.usage?.cached_tokens !== undefined ? { cached: done.usage.cached_tokens } : {}),
    }),
  }
}
