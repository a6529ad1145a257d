/**
 * A strict, push-style Server-Sent Events decoder over `eventsource-parser` (bundled into the build,
 * so `import('charpipe')` still loads no dependency). Text goes in as it arrives (split anywhere,
 * even inside a line or a `\r\n`); complete events come out through `onEvent`. What it adds to the
 * parser: unlike a browser EventSource it refuses lines that are no SSE field at all (a proxy that
 * answers 200 with HTML or bare JSON lines would otherwise look like an empty reply instead of an
 * error); a line or event past `maxLineCharacters` ends the stream; a last event without its blank
 * line is dispatched at the end of the body; keep-alive comments are counted.
 */
import { createParser, type EventSourceMessage, type ParseError } from 'eventsource-parser'
import { UpstreamStreamError } from '../shared/errors.js'

export interface SseEvent {
  /** The `event:` name, or `undefined` for the default `message` event. */
  event: string | undefined
  data: string
}

export interface SseDecoder {
  /** Feeds decoded text; calls `onEvent` for every event it completes. */
  push(text: string): void
  /** Call when the body has ended: dispatches a last event that lacked its blank line. */
  end(): void
  /** `: comment` lines seen so far (keep-alives). */
  readonly commentCount: number
}

/** Longest SSE line, and longest event data, accepted from an upstream (characters). */
export const maxSseLineCharacters = 1_048_576

export interface CreateSseDecoderOptions {
  /** @default maxSseLineCharacters */
  maxLineCharacters?: number
}

/**
 * The parser keeps the start of an unfinished line as pieces and joins them once its line break
 * arrives, so a long line costs linear time; past `maxLineCharacters` of unfinished line plus event
 * data (its `maxBufferSize`) it reports an error, which ends the stream with `upstream_stream`.
 */
export function createSseDecoder(
  onEvent: (event: SseEvent) => void,
  options: CreateSseDecoderOptions = {},
): SseDecoder {
  const maxLine = options.maxLineCharacters ?? maxSseLineCharacters
  let commentCount = 0
  // Set once the stream was refused: the parser is then spent, and the body's end adds nothing.
  let refused = false

  const refuseLongLine = () => {
    refused = true
    throw new UpstreamStreamError(`upstream SSE line of more than ${maxLine} characters: the stream is cut`)
  }

  const parser = createParser({
    maxBufferSize: maxLine,
    onEvent(message: EventSourceMessage) {
      // An event that arrived whole in one push never sat in the parser's buffer: checked here.
      if (message.data.length > maxLine) refuseLongLine()
      // The parser's own object (it always sets `event`) when it has no id: one object less a chunk.
      onEvent(message.id === undefined ? (message as SseEvent) : { event: message.event, data: message.data })
    },
    onComment() {
      commentCount++
    },
    onError(error: ParseError) {
      if (error.type === 'max-buffer-size-exceeded') refuseLongLine()
      // The line itself is not shown: an address that is not a model server (an internal page)
      // must not have its content passed on to clients.
      if (error.type === 'unknown-field') {
        refused = true
        throw new UpstreamStreamError(
          `malformed SSE line from upstream (${error.line?.length ?? 0} characters; not an event stream)`,
        )
      }
      // `retry:` with a value that is no number: a reconnection hint, and we never reconnect.
    },
  })

  return {
    get commentCount() {
      return commentCount
    },
    push(text) {
      parser.feed(text)
    },
    end() {
      if (refused) return
      // The line breaks the body lacked: the unfinished line is read (and refused if it is no SSE),
      // and the event it belongs to is dispatched. (`reset({ consume: true })` reads the line but
      // drops the event.) After a complete body both are blank lines and change nothing.
      parser.feed('\n\n')
      parser.reset()
    },
  }
}
