/**
 * A cheap upper estimate of the size of the program RE2 compiles a pattern to, read from the
 * pattern's text without compiling it: a repetition multiplies what it repeats (`(?:[a-z]?){900}`
 * is about 1,800 instructions). Compiling costs time in proportion to the program, and a 500-character
 * pattern can compile to 60,000 instructions, so a pattern far over the bound is refused on this
 * estimate before any compiling; one near it is compiled and its real size checked.
 */

/** Instructions per atom (a character, a class, an escape, an assertion): RE2 needs one or two. */
const atomSize = 2
/** Far past any bound: the estimate stops growing here (nested repetitions multiply quickly). */
const ceiling = 1e12

interface Reader {
  pattern: string
  index: number
}

/** `{n}`, `{n,}`, `{n,m}` at the reader: the largest count it allows (the lower for `{n,}`). */
function readCount(reader: Reader): number | undefined {
  const match = /^\{(\d+)(,(\d*))?\}/.exec(reader.pattern.slice(reader.index, reader.index + 24))
  if (!match) return undefined
  reader.index += match[0].length
  const low = Number(match[1])
  return match[3] ? Math.max(low, Number(match[3])) : low
}

/** Skips a class `[…]`, escapes inside it included. */
function skipClass(reader: Reader): void {
  const { pattern } = reader
  reader.index++
  if (pattern[reader.index] === '^') reader.index++
  if (pattern[reader.index] === ']') reader.index++
  while (reader.index < pattern.length && pattern[reader.index] !== ']')
    reader.index += pattern[reader.index] === '\\' ? 2 : 1
  reader.index++
}

/** Skips an escape: `\p{…}`, `\u{…}` and `\x{…}` take their braces along. */
function skipEscape(reader: Reader): void {
  const { pattern } = reader
  reader.index += 2
  if (pattern[reader.index] === '{' && /[pPux]/.test(pattern[reader.index - 1] ?? '')) {
    const close = pattern.indexOf('}', reader.index)
    reader.index = close < 0 ? pattern.length : close + 1
  }
}

/** `\Q…\E`: the characters between are literals, one atom each. */
function skipQuote(reader: Reader): number {
  const start = reader.index + 2
  const end = reader.pattern.indexOf('\\E', start)
  reader.index = end < 0 ? reader.pattern.length : end + 2
  return atomSize * Math.max(1, (end < 0 ? reader.pattern.length : end) - start)
}

/** The opening of a group after `(`: `?:`, `?<name>`, `?P<name>`, `?i:`, a lookaround's `?=`. */
function skipGroupOpening(reader: Reader): void {
  const match = /^\?(P?<[^>]*>|[a-zA-Z-]*:|[=!]|<[=!])?/.exec(
    reader.pattern.slice(reader.index, reader.index + 80),
  )
  reader.index += match?.[0].length ?? 0
}

function readAlternation(reader: Reader): number {
  let size = 0
  for (;;) {
    size += readSequence(reader)
    if (reader.pattern[reader.index] !== '|') return size
    reader.index++
    // The alternation, and a no-op for an empty branch.
    size += atomSize
  }
}

function readAtom(reader: Reader): number {
  const { pattern } = reader
  const character = pattern[reader.index]
  if (character === '(') {
    reader.index++
    skipGroupOpening(reader)
    const inner = readAlternation(reader)
    if (pattern[reader.index] === ')') reader.index++
    return inner + atomSize
  }
  if (character === '[') skipClass(reader)
  else if (pattern.startsWith('\\Q', reader.index)) return skipQuote(reader)
  else if (character === '\\') skipEscape(reader)
  else reader.index++
  return atomSize
}

/** A group that only sets flags, `(?i)`, or an empty `\Q\E`: no atom, so a quantifier after it repeats the one before. */
function skipFlagsGroup(reader: Reader): boolean {
  const match = /^(\(\?[a-zA-Z-]*\)|\\Q\\E)/.exec(reader.pattern.slice(reader.index, reader.index + 16))
  if (match) reader.index += match[0].length
  return match !== null
}

function readSequence(reader: Reader): number {
  const { pattern } = reader
  let size = 0
  // The atom quantifiers apply to, already counted in `size`.
  let last = 0
  while (reader.index < pattern.length && pattern[reader.index] !== '|' && pattern[reader.index] !== ')') {
    if (!skipFlagsGroup(reader)) {
      last = readAtom(reader)
      size += last
    }
    for (;;) {
      const next = pattern[reader.index]
      let repeated = last
      if (next === '*' || next === '+' || next === '?') {
        reader.index++
        repeated = last + atomSize
      } else if (next === '{') {
        const count = readCount(reader)
        if (count === undefined) break
        repeated = (count + 1) * (last + 2)
      } else break
      if (pattern[reader.index] === '?') reader.index++
      size = Math.min(ceiling, size - last + repeated)
      last = Math.min(ceiling, repeated)
    }
  }
  return size
}

/** An estimate at or above the number of instructions RE2 compiles `pattern` to. */
export function estimatePatternSize(pattern: string): number {
  const reader: Reader = { pattern, index: 0 }
  // The program's own instructions: the start, the match and the failure.
  let size = 3
  // A stray `)` ends a sequence: go on past it so nothing after it goes uncounted.
  while (reader.index < pattern.length) {
    size = Math.min(ceiling, size + readAlternation(reader))
    reader.index++
  }
  return size
}
