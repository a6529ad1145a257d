/**
 * Whether a JSON text nests objects and arrays deeper than a limit, found by one scan of the text
 * before it is parsed. `JSON.parse` copes with any depth, but what comes after it (validation,
 * `structuredClone`, `JSON.stringify` when storing) recurses and overflows the stack, which would
 * answer 500 for what is a bad request.
 */

/** Deeper than any real request body or config; far below where recursion overflows. */
export const maxJsonDepth = 64

const openBrace = 0x7b
const closeBrace = 0x7d
const openBracket = 0x5b
const closeBracket = 0x5d
const quote = 0x22
const backslash = 0x5c

export function isJsonNestedTooDeep(text: string, limit = maxJsonDepth): boolean {
  let depth = 0
  let inString = false
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index)
    if (inString) {
      if (code === backslash) index++
      else if (code === quote) inString = false
    } else if (code === quote) inString = true
    else if (code === openBrace || code === openBracket) {
      if (++depth > limit) return true
    } else if (code === closeBrace || code === closeBracket) depth--
  }
  return false
}
