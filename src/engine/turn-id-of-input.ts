/**
 * The turn id of an input that carries the client's id: derived from the session, the character
 * and that id, so a resend of the input (to this server or any other) is the same turn, and the
 * stores, which keep a turn once, never store it twice. Shaped as a UUID (version 8, "custom") like
 * the random turn ids of inputs without an id.
 */
import { createHash } from 'node:crypto'

export function turnIdOfInput(session: string, character: string | undefined, inputId: string): string {
  const hex = createHash('sha256')
    .update(JSON.stringify(['charpipe-input', session, character ?? '', inputId]))
    .digest('hex')
  const variant = ((Number.parseInt(hex[16]!, 16) & 0x3) | 0x8).toString(16)
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-8${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`
}
