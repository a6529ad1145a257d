/**
 * Parses one WebSocket frame from the client, once, in front of every handler: a JSON text frame
 * within the size bound, not nested too deep, an object without a forbidden key, of a known type
 * and valid for it (request-schemas.ts). A frame that is not gets the reason, for a `bad_request`.
 */
import { describeForbiddenKey, findForbiddenKey } from '../../shared/find-forbidden-key.js'
import { isJsonNestedTooDeep, maxJsonDepth } from '../../shared/is-json-nested-too-deep.js'
import { type ClientFrame, clientFrameSchema, clientFrameTypes, formatZodIssues } from '../request-schemas.js'

export interface ParseClientFrameOptions {
  data: unknown
  /** Largest accepted frame, in bytes (`server.max_body_bytes`). */
  maxFrameBytes: number
}

export type ParseClientFrameResult = { ok: true; frame: ClientFrame } | { ok: false; message: string }

const refuse = (message: string): ParseClientFrameResult => ({ ok: false, message })

export function parseClientFrame(options: ParseClientFrameOptions): ParseClientFrameResult {
  const { data, maxFrameBytes } = options
  if (typeof data !== 'string') return refuse('binary frames are not accepted: send JSON text frames')
  const size = Buffer.byteLength(data)
  if (size > maxFrameBytes)
    return refuse(`the frame is ${size} bytes, more than server.max_body_bytes (${maxFrameBytes})`)
  if (isJsonNestedTooDeep(data)) return refuse(`the frame nests deeper than ${maxJsonDepth} levels`)
  let value: unknown
  try {
    value = JSON.parse(data)
  } catch (error) {
    return refuse(`the frame is not valid JSON: ${(error as Error).message}`)
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    return refuse(`a frame must be a JSON object with a "type" (${clientFrameTypes.join(', ')})`)
  const forbidden = findForbiddenKey(value)
  if (forbidden !== undefined) return refuse(describeForbiddenKey(forbidden))
  const parsed = clientFrameSchema.safeParse(value)
  if (parsed.success) return { ok: true, frame: parsed.data }
  const type = (value as { type?: unknown }).type
  const known = (clientFrameTypes as readonly unknown[]).includes(type)
  return refuse(
    known
      ? `${type} frame: ${formatZodIssues(parsed.error)}`
      : `type: unknown frame type ${JSON.stringify(type ?? null)}; expected ${clientFrameTypes.join(', ')}`,
  )
}
