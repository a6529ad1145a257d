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

export function createSseDecoder(onEvent: (event: SseEvent) => void): SseDecoder {
  let buffer = ''
  let eventName: string | undefined
  let data: string | undefined
  let commentCount = 0
  // A chunk that ended on `\r` may be followed by `\n` in the next one: the pair is one line break.
  let skipLeadingLineFeed = false

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

  return {
    get commentCount() {
      return commentCount
    },
    push(text) {
      let input = text
      if (skipLeadingLineFeed) {
        skipLeadingLineFeed = false
        if (input.charCodeAt(0) === 10) input = input.slice(1)
      }
      buffer = buffer.length === 0 ? input : buffer + input
      let start = 0
      const length = buffer.length
      // Searched once and only again once passed: most streams have no `\r` at all, and searching
      // the rest of the buffer on every line would be quadratic.
      let carriageReturn = buffer.indexOf('\r')
      while (start < length) {
        const lineFeed = buffer.indexOf('\n', start)
        if (carriageReturn !== -1 && carriageReturn < start) carriageReturn = buffer.indexOf('\r', start)
        let end: number
        let next: number
        if (carriageReturn !== -1 && (lineFeed === -1 || carriageReturn < lineFeed)) {
          end = carriageReturn
          if (carriageReturn + 1 === length) {
            skipLeadingLineFeed = true
            next = length
          } else {
            next = buffer.charCodeAt(carriageReturn + 1) === 10 ? carriageReturn + 2 : carriageReturn + 1
          }
        } else if (lineFeed !== -1) {
          end = lineFeed
          next = lineFeed + 1
        } else {
          break
        }
        handleLine(buffer.slice(start, end))
        start = next
      }
      buffer = start === 0 ? buffer : buffer.slice(start)
    },
    end() {
      if (buffer.length > 0) {
        handleLine(buffer)
        buffer = ''
      }
      dispatch()
    },
  }
}
