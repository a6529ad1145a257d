/**
 * Characters model output must not carry to clients: C0 controls other than tab and line feed
 * (ESC starts terminal escape sequences, NUL and BEL upset players and logs), DEL, the C1 controls
 * (0x9B is a one-byte CSI to many terminals), the bidi marks, embeddings, overrides and isolates
 * (U+061C, U+200E, U+200F, U+202A–U+202E, U+2066–U+2069), which reorder text so a subtitle shows
 * something other than what is said, and invisible format characters that a subtitle or a TTS
 * engine cannot show or say (U+200B, U+2060–U+2064, the deprecated U+206A–U+206F, U+FEFF,
 * U+FFF9–U+FFFB). Carriage returns are dropped too; line feeds stay, and the line and paragraph
 * separators U+2028 and U+2029 become line feeds (players and JavaScript string literals choke on
 * them). Joiners (U+200C, U+200D) stay: scripts and emoji sequences need them.
 *
 * It runs on every model delta, so the common case is one scan of char codes with no allocation:
 * a string is only rebuilt when it holds something to strip.
 */

function isUnsafe(code: number): boolean {
  if (code < 0x20) return code !== 0x09 && code !== 0x0a
  if (code < 0x7f) return false
  if (code <= 0x9f) return true
  if (code < 0x061c) return false
  if (code === 0x061c) return true
  if (code < 0x200b) return false
  if (code <= 0x206f) return isUnsafeFormat(code)
  return code === 0xfeff || (code >= 0xfff9 && code <= 0xfffb)
}

/** U+200B–U+206F: which of the general punctuation block's format characters go. */
function isUnsafeFormat(code: number): boolean {
  if (code === 0x200b || code === 0x200e || code === 0x200f) return true
  if (code === 0x2028 || code === 0x2029) return true
  if (code >= 0x202a && code <= 0x202e) return true
  return code >= 0x2060 && code !== 0x2065
}

const lineSeparator = 0x2028
const paragraphSeparator = 0x2029

/** `text` without control, bidi and invisible format characters (see the file header); the same string when clean. */
export function stripUnsafeCharacters(text: string): string {
  let index = 0
  const length = text.length
  while (index < length && !isUnsafe(text.charCodeAt(index))) index++
  if (index === length) return text
  let result = text.slice(0, index)
  for (; index < length; index++) {
    const code = text.charCodeAt(index)
    if (!isUnsafe(code)) result += text[index]
    else if (code === lineSeparator || code === paragraphSeparator) result += '\n'
  }
  return result
}
