/**
 * A text field of a model's stream event, checked where it is read: upstreams are gateways, local
 * servers and proxies, and a field of another type (a number for `content`, an object for
 * `finish_reason`) must end the stream with an error that names it, not reach the reply as a
 * non-string or throw a TypeError deep in the turn.
 */
import { UpstreamStreamError } from '../shared/errors.js'

function describeWireType(value: unknown): string {
  if (Array.isArray(value)) return 'an array'
  if (typeof value === 'object') return 'an object'
  return `a ${typeof value}`
}

/** `value` when it is a string; undefined when absent (`undefined` or `null`); refused otherwise. */
export function readWireText(value: unknown, event: string, field: string): string | undefined {
  if (typeof value === 'string') return value
  if (value === undefined || value === null) return undefined
  throw new UpstreamStreamError(
    `upstream sent ${event} whose ${field} is ${describeWireType(value)}, not text`,
  )
}
