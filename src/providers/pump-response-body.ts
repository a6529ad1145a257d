/**
 * A `fetch` wrapper for SDKs that read the SSE body themselves (Anthropic): a streamed 2xx body is
 * replaced by one fed from `createBodyPump`, so that chunks received before a broken connection
 * still reach the SDK's parser before the transport error does. Other answers pass through as they
 * are, so that the SDK reads error bodies the usual way.
 */
import { createBodyPump } from './create-body-pump.js'
import { createNodeBodyPump } from './create-node-body-pump.js'
import { takeNodeBody } from './create-node-fetch.js'

/** Replaces the body of a streamed 2xx answer by an eagerly read one. */
function pumpResponseBody(response: Response, signal?: AbortSignal | null): Response {
  const contentType = response.headers.get('content-type') ?? ''
  if (!response.ok || !contentType.includes('text/event-stream')) return response
  // An answer of `createNodeFetch` is pumped from its Node message, without a web stream between.
  const message = takeNodeBody(response)
  if (!message && !response.body) return response
  const pump = message ? createNodeBodyPump(message) : createBodyPump(response.body!)
  const body = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        let chunks: Uint8Array[] | undefined
        try {
          chunks = await pump.take()
        } catch (error) {
          controller.error(error)
          return
        }
        // An abort wins over data still queued: the caller has stopped listening.
        if (signal?.aborted) return controller.error(signal.reason)
        if (!chunks) return controller.close()
        for (const chunk of chunks) controller.enqueue(chunk)
      },
      cancel(reason) {
        pump.cancel(reason)
      },
    },
    { highWaterMark: 0 },
  )
  return new Response(body, {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  })
}

/** Wraps a `fetch` so that streamed answers are read eagerly (see `pumpResponseBody`). */
export function createPumpingFetch(baseFetch?: typeof fetch): typeof fetch {
  return async (input, init) => pumpResponseBody(await (baseFetch ?? fetch)(input, init), init?.signal)
}
