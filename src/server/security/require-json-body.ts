/**
 * A request body must be `application/json` (415 otherwise). A web page can send a cross-site
 * request without asking first only with the form types (`text/plain`, `application/x-www-form-urlencoded`,
 * `multipart/form-data`); insisting on JSON makes every cross-site body go through a preflight that
 * a foreign origin does not pass. A route taking another type (never one of those) is listed in
 * `extraTypes` by its path.
 */
import type { MiddlewareHandler } from 'hono'

export interface RequireJsonBodyOptions {
  /** Media types accepted besides JSON, by exact path. */
  extraTypes?: Readonly<Record<string, readonly string[]>>
}

export function requireJsonBody(options: RequireJsonBodyOptions = {}): MiddlewareHandler {
  const extraTypes = options.extraTypes ?? {}
  return async (context, next) => {
    const method = context.req.method
    if (method === 'GET' || method === 'HEAD' || method === 'OPTIONS') return next()
    const contentType = context.req.header('content-type')
    if (contentType === undefined) {
      // No type: fine without a body (DELETE, an empty POST); a body must say what it is.
      const length = context.req.header('content-length')
      const hasBody =
        (length !== undefined && length !== '0') || context.req.header('transfer-encoding') !== undefined
      return hasBody ? refuse(context, 'no Content-Type') : next()
    }
    const mediaType = readMediaType(contentType)
    if (mediaType === 'application/json' || mediaType.endsWith('+json')) return next()
    if (extraTypes[context.req.path]?.includes(mediaType)) return next()
    return refuse(context, mediaType)
  }
}

function readMediaType(contentType: string): string {
  const end = contentType.indexOf(';')
  return (end === -1 ? contentType : contentType.slice(0, end)).trim().toLowerCase()
}

function refuse(context: Parameters<MiddlewareHandler>[0], given: string) {
  return context.json(
    {
      error: {
        code: 'bad_request',
        message: `the body must be JSON sent with "Content-Type: application/json" (got ${given === 'no Content-Type' ? given : JSON.stringify(given.slice(0, 100))})`,
      },
    },
    415,
  )
}
