/**
 * A wire format of the `/v1` endpoints (Chat Completions, Open Responses): a pure mapper from a
 * turn's events to the chunks its client reads, and its ending. The bookkeeping every format needs
 * (the failure that ends a turn, a `tool_choice` the reply did not meet, a turn that ended without
 * `llm_done`) is kept once here (`createTurnTally`), so the formats only say how each event and
 * each ending is written. `createWireDialect` makes a format a dialect the one driver runs
 * (drive-turn.ts): store first, then tell, its finish keeps the answer before the chunks that say
 * it is done.
 */
import type { CharpipeEvent, LlmDoneEvent } from '../../shared/events.js'
import type { TurnDialect } from '../turn-dialect.js'
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
  /** The chunks that end the stream, once the answer is kept (`settle` of `createWireDialect`). */
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

export interface CreateWireDialectOptions {
  format: WireFormat
  tally: TurnTally
  /** The chunks the client was sent once it has left; undefined while it is there (create-wire-transport.ts). */
  countChunksIfLeft(): number | undefined
  /** Keeps the answer before its end is sent; a failure to keep it ends the answer instead. */
  settle?(ending: TurnEnding): Promise<TurnFailure | undefined>
  /** The chunks that say the turn threw: nothing is kept, the stream just ends failed. */
  fail(): WireChunk[]
}

/** A `/v1` stream as a dialect: the format's chunks, the tally seeing each event, the answer kept before its end. */
export function createWireDialect(options: CreateWireDialectOptions): TurnDialect<WireChunk> {
  const { format, tally, settle } = options
  const closeTurn = (): { ending: TurnEnding; closing: WireChunk[] } => {
    const ending = tally.ending()
    const written = options.countChunksIfLeft()
    const closed = written === undefined ? ending : { ...ending, writtenChunks: written }
    return { ending: closed, closing: format.close(closed) }
  }
  return {
    start: () => format.start(),
    push(event) {
      tally.observe(event)
      return format.push(event)
    },
    finish({ threw }) {
      if (threw) return options.fail()
      const { ending, closing } = closeTurn()
      if (!settle) return [...closing, ...format.end(ending)]
      // Store first, then tell: what closes the answer and what says it is done go out once it is kept.
      return settle(ending).then((unsettled) => [
        ...closing,
        ...format.end(unsettled ? { ...ending, failure: unsettled } : ending),
      ])
    },
  }
}

export interface CollectWireTurnOptions {
  events: AsyncIterator<CharpipeEvent>
  format: Pick<WireFormat, 'push' | 'close'>
  tally: TurnTally
}

/** Runs a turn that is not streamed through its format: nothing is written; its ending once the format is closed. */
export async function collectWireTurn(options: CollectWireTurnOptions): Promise<TurnEnding> {
  const { format, tally } = options
  for (let next = await options.events.next(); !next.done; next = await options.events.next()) {
    tally.observe(next.value)
    format.push(next.value)
  }
  const ending = tally.ending()
  format.close(ending)
  return ending
}

/** A turn's events from an iterator some of which were already read (`held`): those first. */
export async function* resumeEvents(
  held: readonly CharpipeEvent[],
  events: AsyncIterator<CharpipeEvent>,
): AsyncGenerator<CharpipeEvent> {
  yield* held
  for (let next = await events.next(); !next.done; next = await events.next()) yield next.value
}
