/**
 * The Open Responses wire format (`/v1/responses`): the response builder's events as SSE chunks
 * named by their type, each text delta carrying the display text it released (what a client that
 * leaves has been sent), and the turn's ending as the response's: completed, incomplete (the
 * client left, or the session's next input cut it) or failed. A non-streamed answer runs the same
 * format and sends the builder's resource.
 */
import type { CharpipeEvent, LlmDoneEvent } from '../../shared/events.js'
import type { TurnEnding, WireChunk, WireFormat } from '../openai/wire-format.js'
import type { ResponseBuilder, ResponseStreamEvent } from './create-response-builder.js'
import type { ResponseUsage } from './create-response-resource.js'

export interface OpenResponsesFormatOptions {
  builder: ResponseBuilder
  countUsage(done: LlmDoneEvent): ResponseUsage
}

const convertToChunk = (event: ResponseStreamEvent, text?: string): WireChunk => ({
  event: event.type,
  data: JSON.stringify(event),
  ...(text ? { text } : {}),
})

export function createOpenResponsesFormat(options: OpenResponsesFormatOptions) {
  const { builder } = options
  /** Display text given to the builder and not yet in a delta (an inline dialect holds it). */
  let held = ''
  const convert = (events: ResponseStreamEvent[]): WireChunk[] =>
    events.map((event) => {
      if (event.type !== 'response.output_text.delta' || !held) return convertToChunk(event)
      const text = held
      held = ''
      return convertToChunk(event, text)
    })

  const format = {
    start: () => convert(builder.start()),
    push(event: CharpipeEvent): WireChunk[] {
      if (event.type === 'llm_chunk') held += event.text
      return convert(builder.push(event))
    },
    close(ending: TurnEnding): WireChunk[] {
      const { done, failure } = ending
      return convert(
        builder.close({
          ...(done ? { usage: options.countUsage(done), emotion: done.emotion, text: done.text } : {}),
          ...(done?.interrupted ? { interrupted: true } : {}),
          ...(failure ? { failure } : {}),
          ...(ending.writtenChunks !== undefined ? { writtenEvents: ending.writtenChunks } : {}),
        }),
      )
    },
    end(ending: TurnEnding): WireChunk[] {
      // A failure found once the response was settled (its store) fails the response.
      if (ending.failure) builder.fail(ending.failure)
      return [convertToChunk(builder.end())]
    },
  } satisfies WireFormat
  return format
}
