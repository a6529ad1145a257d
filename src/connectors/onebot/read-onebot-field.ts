/**
 * Fields of a OneBot frame read as what they should be, whatever JSON the implementation sent: an
 * id is a string or a safe integer, a text a string (or a finite number); anything else (null, an
 * object with its own `toString`, an array) reads as missing, and is never turned into text by
 * calling it.
 */

/** Longest id kept (a QQ number, a message id): a longer one is no id. */
const maxIdChars = 64

export function readOnebotId(value: unknown): string | undefined {
  if (typeof value === 'number') return Number.isSafeInteger(value) ? String(value) : undefined
  if (typeof value !== 'string' || value === '' || value.length > maxIdChars) return undefined
  return value
}

export function readOnebotText(value: unknown): string {
  if (typeof value === 'string') return value
  if (typeof value === 'number' && Number.isFinite(value)) return String(value)
  return ''
}

/** A plain JSON object (not an array, not null), else an empty one. */
export function readOnebotRecord(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {}
}
