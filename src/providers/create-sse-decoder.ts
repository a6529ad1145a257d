/**
 * A strict, push-style Server-Sent Events decoder. Text goes in as it arrives (split anywhere, even
 * inside a line or a `\r\n`); complete events come out through `onEvent`. Unlike a browser
 * EventSource it refuses lines that are no SSE field at all: a proxy that answers 200 with HTML or
 * bare JSON lines would otherwise look like an empty reply instead of an error.
 */
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
 * Each pushed text is searched once: the start of an unfinished line is kept as pieces and joined
 * only when its line break arrives (appending to one string and searching it again from its start
 * made a 40 MB line cost seconds), and a line or event past `maxLineCharacters` ends the stream
 * with an `upstream_stream` error.
 */
export function createSseDecoder(
  onEvent: (event: SseEvent) => void,
  options: CreateSseDecoderOptions = {},
): SseDecoder {
  const maxLine = options.maxLineCharacters ?? maxSseLineCharacters
  let pending: string[] = []
  let pendingLength = 0
  let eventName: string | undefined
  let data: string | undefined
  let commentCount = 0
  // A chunk that ended on `\r` may be followed by `\n` in the next one: the pair is one line break.
  let skipLeadingLineFeed = false

  const refuseLongLine = (length: number) => {
    throw new UpstreamStreamError(
      `upstream SSE line of more than ${maxLine} characters (${length} so far): the stream is cut`,
    )
  }

  const dispatch = () => {
    if (data !== undefined) onEvent({ event: eventName, data })
    eventName = undefined
    data = undefined
  }

  const handleLine = (line: string) => {
    if (line.length === 0) return dispatch()
    const first = line.charCodeAt(0)
    if (first === 58 /* : */) {
      commentCount++
      return
    }
    const colon = line.indexOf(':')
    const field = colon === -1 ? line : line.slice(0, colon)
    let value = colon === -1 ? '' : line.slice(colon + 1)
    if (value.charCodeAt(0) === 32 /* space */) value = value.slice(1)
    switch (field) {
      case 'data':
        data = data === undefined ? value : `${data}\n${value}`
        if (data.length > maxLine) refuseLongLine(data.length)
        return
      case 'event':
        eventName = value
        return
      case 'id':
      case 'retry':
        return
      default:
        // The line itself is not shown: an address that is not a model server (an internal page)
        // must not have its content passed on to clients.
        throw new UpstreamStreamError(
          `malformed SSE line from upstream (${line.length} characters; not an event stream)`,
        )
    }
  }

  const takeLine = (input: string, start: number, end: number): string => {
    const tail = input.slice(start, end)
    if (pending.length === 0) return tail
    pending.push(tail)
    const line = pending.join('')
    pending = []
    pendingLength = 0
    return line
  }

  return {
    get commentCount() {
      return commentCount
    },
    push(text) {
      let start = 0
      if (skipLeadingLineFeed) {
        skipLeadingLineFeed = false
        if (text.charCodeAt(0) === 10) start = 1
      }
      const length = text.length
      // Each break is searched once and only again once passed: most streams have no `\r` at all.
      let lineFeed = text.indexOf('\n', start)
      let carriageReturn = text.indexOf('\r', start)
      while (start < length) {
        if (lineFeed !== -1 && lineFeed < start) lineFeed = text.indexOf('\n', start)
        if (carriageReturn !== -1 && carriageReturn < start) carriageReturn = text.indexOf('\r', start)
        let end: number
        let next: number
        if (carriageReturn !== -1 && (lineFeed === -1 || carriageReturn < lineFeed)) {
          end = carriageReturn
          if (carriageReturn + 1 === length) {
            skipLeadingLineFeed = true
            next = length
          } else {
            next = text.charCodeAt(carriageReturn + 1) === 10 ? carriageReturn + 2 : carriageReturn + 1
          }
        } else if (lineFeed !== -1) {
          end = lineFeed
          next = lineFeed + 1
        } else {
          break
        }
        if (pendingLength + end - start > maxLine) refuseLongLine(pendingLength + end - start)
        handleLine(takeLine(text, start, end))
        start = next
      }
      if (start < length) {
        pendingLength += length - start
        if (pendingLength > maxLine) refuseLongLine(pendingLength)
        pending.push(start === 0 ? text : text.slice(start))
      }
    },
    end() {
      if (pending.length > 0) {
        const line = pending.join('')
        pending = []
        pendingLength = 0
        handleLine(line)
      }
      dispatch()
    },
  }
}
