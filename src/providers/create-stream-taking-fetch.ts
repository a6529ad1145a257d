/**
 * A `fetch` wrapper for an SDK whose streamed body we read ourselves (Anthropic, through
 * `.asResponse()`): a streamed 2xx body is taken away at once into a `BodyPump` (reading eagerly, so
 * that chunks received before a broken connection still come before the transport error), and the
 * SDK gets the answer without a body. The SDK touches `response.body` on every success, which would
 * turn the Node message of `createNodeFetch` into a web stream and read it; without a body it has
 * nothing to read. Other answers pass through as they are, so the SDK reads error bodies as usual.
 */
import { type BodyPump, createBodyPump } from './create-body-pump.js'
import { createNodeBodyPump } from './create-node-body-pump.js'
import { takeNodeBody } from './create-node-fetch.js'

export interface StreamTakingFetch {
  fetch: typeof fetch
  /** The body of a streamed answer of `fetch`, once (the caller reads it). */
  takeStream(response: Response): BodyPump | undefined
}

export function createStreamTakingFetch(baseFetch: typeof fetch): StreamTakingFetch {
  const streams = new WeakMap<Response, BodyPump>()

  const takeBody = (response: Response): Response => {
    const contentType = response.headers.get('content-type') ?? ''
    if (!response.ok || !contentType.includes('text/event-stream')) return response
    // An answer of `createNodeFetch` is pumped from its Node message, without a web stream between.
    const message = takeNodeBody(response)
    if (!message && !response.body) return response
    const pump = message ? createNodeBodyPump(message) : createBodyPump(response.body!)
    const bodyless = new Response(null, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    })
    streams.set(bodyless, pump)
    return bodyless
  }

  return {
    fetch: async (input, init) => takeBody(await baseFetch(input, init)),
    takeStream(response) {
      const pump = streams.get(response)
      streams.delete(response)
      return pump
    },
  }
}
