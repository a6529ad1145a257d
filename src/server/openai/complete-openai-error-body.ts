/**
 * Middleware: an error answered by any part of the server (auth, body limit, a schema) as
 * `{error:{code, message}}` gets the fields of OpenAI's error object too (`type`, `param`), which
 * clients of the Responses API require to read it. Registered before auth, so a refused token
 * is answered so as well.
 */
import type { MiddlewareHandler } from 'hono'

export const completeOpenAIErrorBody: MiddlewareHandler = async (context, next) => {
  await next()
  const response = context.res
  if (response.status < 400 || !response.headers.get('content-type')?.includes('application/json')) return
  const body = (await response.clone().json()) as { error?: Record<string, unknown> }
  const error = body?.error
  if (!error || typeof error !== 'object' || ('type' in error && 'param' in error)) return
  const completed = {
    ...body,
    error: { message: error.message, type: error.code, param: null, code: error.code, ...error },
  }
  const headers = new Headers(response.headers)
  headers.delete('content-length')
  // A new Response: the Node adapter may send a response from the headers it was made with.
  context.res = new Response(JSON.stringify(completed), { status: response.status, headers })
}
