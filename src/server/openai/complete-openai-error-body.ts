/**
 * Middleware of `/v1/responses`: every error, whichever part of the server answered it (auth, body
 * limit, a schema, a failed turn), is OpenAI's error object with every field a string:
 * `{error:{message, type, param, code}}`. Open Responses clients read nothing else: the AI SDK's
 * provider takes an error body only when `param` is a string too (`""` when no field is at fault).
 * Registered before auth, so a refused token is answered so as well.
 */
import type { MiddlewareHandler } from 'hono'

export const completeOpenAIErrorBody: MiddlewareHandler = async (context, next) => {
  await next()
  const response = context.res
  if (response.status < 400 || !response.headers.get('content-type')?.includes('application/json')) return
  const body = (await response.clone().json()) as { error?: Record<string, unknown> }
  const error = body?.error
  if (!error || typeof error !== 'object') return
  const code = String(error.code ?? 'internal')
  const completed = {
    ...body,
    error: {
      ...error,
      message: String(error.message ?? ''),
      type: typeof error.type === 'string' ? error.type : code,
      param: typeof error.param === 'string' ? error.param : '',
      code,
    },
  }
  const headers = new Headers(response.headers)
  headers.delete('content-length')
  // A new Response: the Node adapter may send a response from the headers it was made with.
  context.res = new Response(JSON.stringify(completed), { status: response.status, headers })
}
