/**
 * Bounds on what a fetch answer may make its reader hold: a body read whole stops at `maxBytes`
 * (a gzip body of a few kilobytes can inflate to gigabytes, and fetch decompresses), and a stream of
 * server-sent events, which may rightly run for hours, at `maxEventBytes` within one event (a parser
 * holds an event until its blank line, so an endless one grows without end). Past a bound the read
 * fails with the caller's error.
 */

export interface ResponseBodyLimits {
  /** Largest body read whole: any answer but an event stream. */
  maxBytes: number
  /** Largest event of an event stream, line ends left out; an event stream is not bounded without it. */
  maxEventBytes?: number
  /** The error a read past a bound fails with. */
  refuse(bound: 'body' | 'event', bytes: number): Error
}

export function limitResponseBody(response: Response, limits: ResponseBodyLimits): Response {
  const body = response.body
  if (!body) return response
  const isEventStream = (response.headers.get('content-type') ?? '').includes('text/event-stream')
  if (isEventStream && limits.maxEventBytes === undefined) return response
  const counter = isEventStream
    ? countEventBytes(limits.maxEventBytes as number, limits)
    : countBodyBytes(limits.maxBytes, limits)
  const limited = new Response(body.pipeThrough(new TransformStream(counter)), {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  })
  // Where the answer came from, as the SDKs may read it.
  Object.defineProperty(limited, 'url', { value: response.url })
  return limited
}

function countBodyBytes(maxBytes: number, limits: ResponseBodyLimits): Transformer<Uint8Array, Uint8Array> {
  let bytes = 0
  return {
    transform(chunk, controller) {
      bytes += chunk.length
      if (bytes > maxBytes) controller.error(limits.refuse('body', maxBytes))
      else controller.enqueue(chunk)
    },
  }
}

const lineFeed = 0x0a
const carriageReturn = 0x0d

/**
 * Counts the bytes of the event being read: an event ends at a blank line, and a line at CR LF, LF
 * or CR (the event-stream grammar), wherever the chunks cut them.
 */
function countEventBytes(maxBytes: number, limits: ResponseBodyLimits): Transformer<Uint8Array, Uint8Array> {
  let eventBytes = 0
  let lineBytes = 0
  let afterCarriageReturn = false
  return {
    transform(chunk, controller) {
      for (const byte of chunk) {
        if (byte === lineFeed && afterCarriageReturn) {
          // The LF of a CR LF: the line already ended at its CR.
          afterCarriageReturn = false
          continue
        }
        afterCarriageReturn = byte === carriageReturn
        if (byte === lineFeed || byte === carriageReturn) {
          if (lineBytes === 0) eventBytes = 0
          lineBytes = 0
          continue
        }
        lineBytes++
        if (++eventBytes > maxBytes) {
          controller.error(limits.refuse('event', maxBytes))
          return
        }
      }
      controller.enqueue(chunk)
    },
  }
}
