/**
 * Providers accept tool names of 1-64 letters, digits, `_` and `-`. An MCP server may name its
 * tools otherwise (dots, slashes, long names): such a name is mapped to an accepted one, and the
 * call goes back to the server under its own name.
 */
import { createHash } from 'node:crypto'

const acceptedName = /^[A-Za-z0-9_-]{1,64}$/

/** The name the model sees for `prefix` + `name`; unchanged when it is already accepted. */
export function mapToolName(prefix: string, name: string): string {
  const wanted = `${prefix}${name}`
  if (acceptedName.test(wanted)) return wanted
  const cleaned = wanted.replace(/[^A-Za-z0-9_-]/g, '_')
  // A short hash keeps `a.b` and `a/b` apart once both became `a_b`, and long names apart once cut.
  return `${cleaned.slice(0, 57)}_${shortHash(wanted)}`
}

function shortHash(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 6)
}
