/**
 * Reads a JSON body and validates it with a zod schema; anything wrong becomes a `bad_request`
 * answer that names the problem (not JSON, nested too deep, which field, what was expected).
 */
import type { Context } from 'hono'
import type { z } from 'zod'
import { describeForbiddenKey, findForbiddenKey } from '../shared/find-forbidden-key.js'
import { isJsonNestedTooDeep, maxJsonDepth } from '../shared/is-json-nested-too-deep.js'
import { respondBadRequest } from './error-response.js'
import { formatZodIssues } from './request-schemas.js'

export type ReadJsonBodyResult<T> = { ok: true; value: T } | { ok: false; response: Response }

/** Parses the request body as JSON and checks it against `schema`. */
export async function readJsonBody<T extends z.ZodType>(
  context: Context,
  schema: T,
  /** A refusal of the parsed JSON before it is validated (cheap bounds, checked before the work). */
  refuse?: (value: unknown) => Response | undefined,
): Promise<ReadJsonBodyResult<z.infer<T>>> {
  const text = await context.req.text()
  if (isJsonNestedTooDeep(text)) {
    return {
      ok: false,
      response: respondBadRequest(context, `the body nests deeper than ${maxJsonDepth} levels`),
    }
  }
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch (error) {
    return {
      ok: false,
      response: respondBadRequest(
        context,
        text.trim() === ''
          ? 'the body is empty: expected a JSON object'
          : `the body is not valid JSON: ${(error as Error).message}`,
      ),
    }
  }
  // Before the walk for forbidden keys: a bound refuses a huge body at the cost of its parse alone.
  const refused = refuse?.(value)
  if (refused) return { ok: false, response: refused }
  const forbidden = findForbiddenKey(value)
  if (forbidden !== undefined)
    return { ok: false, response: respondBadRequest(context, describeForbiddenKey(forbidden)) }
  const parsed = schema.safeParse(value)
  if (!parsed.success)
    return { ok: false, response: respondBadRequest(context, formatZodIssues(parsed.error)) }
  return { ok: true, value: parsed.data }
}
