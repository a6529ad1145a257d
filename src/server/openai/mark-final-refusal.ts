/**
 * Middleware of the OpenAI-compatible routes: every 4xx but the ones a wait mends (408, 409, 429)
 * carries `x-should-retry: false`, whichever part of the server refused (auth, body limit, schema).
 */
import type { Hono } from 'hono'
import { isRetryableStatus } from '../../shared/errors.js'

/** A new Response: the Node adapter may send a response from the headers it was made with, not later changes. */
function markFinalRefusal(response: Response): Response {
  const { status } = response
  if (status < 400 || status >= 500 || isRetryableStatus(status)) return response
  const headers = new Headers(response.headers)
  headers.set('x-should-retry', 'false')
  return new Response(response.body, { status, statusText: response.statusText, headers })
}

export function useFinalRefusalHeader(app: Hono, path: string): void {
  app.use(path, async (context, next) => {
    await next()
    context.res = markFinalRefusal(context.res)
  })
}
