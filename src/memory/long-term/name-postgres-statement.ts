/**
 * A name for a statement run on every search, so each pooled connection parses and plans it once
 * (a named prepared statement) instead of on every call. The name depends on the text, so stores
 * on different schemas sharing a pool never mix their plans.
 */
import { createHash } from 'node:crypto'

export function namePostgresStatement(purpose: string, text: string): string {
  return `charpipe_${purpose}_${createHash('sha1').update(text).digest('hex').slice(0, 16)}`
}
