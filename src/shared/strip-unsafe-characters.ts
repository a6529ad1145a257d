/**
 * Characters model output must not carry to clients: C0 controls other than tab and line feed
 * (ESC starts terminal escape sequences, NUL and BEL upset players and logs), DEL, the C1 controls
 * (0x9B is a one-byte CSI to many terminals), and the bidi embedding/override/isolate characters
 * (U+202A–U+202E, U+2066–U+2069), which reorder text so a subtitle shows something other than what
 * is said. Carriage returns are dropped too; line feeds stay.
 *
 * It runs on every model delta, so the common case is one scan of char codes with no allocation:
 * a string is only rebuilt when it holds something to strip.
 */

function isUnsafe(code: number): boolean {
  if (code < 0x20) return code !== 0x09 && code !== 0x0a
  if (code < 0x7f) return false
  if (code <= 0x9f) return true
  if (code < 0x202a) return false
  return code <= 0x202e || (code >= 0x2066 && code <= 0x2069)
}

/** `text` without control and bidi-override characters (see the file header); the same string when clean. */
export function stripUnsafeCharacters(text: string): string {
  let index = 0
  const length = text.length
  while (index < length && !isUnsafe(text.charCodeAt(index))) index++
  if (index === length) return text
  let result = text.slice(0, index)
  for (; index < length; index++) {
    const code = text.charCodeAt(index)
    if (!isUnsafe(code)) result += text[index]
  }
  return result
}
