/**
 * A lane (a session with one character: session-lanes.ts) named by one string, for what is kept or
 * sent per lane: the cluster's locks and messages, and the lines each character present has heard.
 */

/** One string naming a session's lane with a character (cluster locks and interrupts use it). */
export function laneKeyOf(session: string, character: string | undefined): string {
  return character ? `${session}\u0000${character}` : session
}

/** The session and character a lane key names (session ids cannot hold NUL, character ids neither). */
export function parseLaneKey(key: string): { session: string; character: string | undefined } {
  const separator = key.indexOf('\u0000')
  if (separator < 0) return { session: key, character: undefined }
  return { session: key.slice(0, separator), character: key.slice(separator + 1) }
}
