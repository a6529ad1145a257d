/**
 * A wire format of the `/v1` endpoints (Chat Completions, Open Responses): a pure mapper from a
 * turn's events to the chunks its client reads, and its ending. The bookkeeping every format needs
 * (the failure that ends a turn, a `tool_choice` the reply did not meet, a turn that ended without
 * `llm_done`) is kept once here (`createTurnTally`), so the formats only say how each event and
 * each ending is written. drive-wire-turn.ts runs a turn through a format into the transport.
 */
import type { CharpipeEvent, LlmDoneEvent } from '../../shared/events.js'
import { createToolChoiceCheck } from './check-tool-choice.js'
import type { RequiredToolChoice } from './read-tool-choice.js'
import { isTurnFailure, missingDone, type TurnFailure } from './send-openai-error.js'

/** One message of the stream. */
export interface WireChunk {
  /** The SSE event name (Open Responses names each event; Chat Completions none). */
  event?: string
  data: string
  /** The reply's display text this chunk carries: what a client that leaves has been sent. */
  text?: string
}

/** How a turn ended, as the formats answer it. */
export interface TurnEnding {
  /** The turn's `llm_done`; undefined when it ended without one. */
  done: LlmDoneEvent | undefined
  /** Why the reply is not an answer: the turn's failure, an unmet `tool_choice`, no `llm_done`, a store that failed. */
  failure: TurnFailure | undefined
  /** Chunks written to the client before it left (the formats keep only what was sent). */
  writtenChunks?: number
}

export interface WireFormat {
  /** The chunks that open a stream. */
  start(): WireChunk[]
  /** The chunks of one turn event (none for most). */
  push(event: CharpipeEvent): WireChunk[]
  /** The chunks that close what is open (text held for its emotion, an open item). */
  close(ending: TurnEnding): WireChunk[]
  /** The chunks that end the stream, once the answer is kept (`settle` in drive-wire-turn.ts). */
  end(ending: TurnEnding): WireChunk[]
}

export interface TurnTally {
  /** Sees each of the turn's events, in order. */
  observe(event: CharpipeEvent): void
  /** How the turn ended, as far as it has been seen. */
  ending(): TurnEnding
}

/** The ending of a turn: its first failure, else a `tool_choice` it did not meet, else `llm_done` missing. */
export function createTurnTally(toolChoice: RequiredToolChoice | undefined): TurnTally {
  const toolChoiceCheck = createToolChoiceCheck(toolChoice)
  let done: LlmDoneEvent | undefined
  let failure: TurnFailure | undefined
  return {
    observe(event) {
      toolChoiceCheck.observe(event)
      if (event.type === 'llm_error' && isTurnFailure(event)) failure ??= event
      if (event.type === 'llm_done') done = event
    },
    ending() {
      const ended = failure ?? (done ? toolChoiceCheck.unmet(done) : missingDone)
      return { done, failure: ended }
    },
  }
}
