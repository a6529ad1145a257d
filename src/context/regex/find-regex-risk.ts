/**
 * A guard against catastrophic backtracking in user regexes. JavaScript regexes cannot be given a
 * time budget in-thread, so we (1) reject the shapes that backtrack exponentially — a repeated group
 * that itself holds an unbounded quantifier (`(a+)+`, `(\w*)*`, `(?:a|b+)*`) or a repeated
 * alternation whose branches can match the same text (`(a|a)*`, `(\w|\d)+`, `(ab|a)*`) — and (2) cap
 * the length of text a rule runs on (`max_input_chars` of the regex processor), which bounds the
 * polynomial cases (`\s*\s*$`) that remain.
 */

interface GroupFrame {
  /** The group holds an unbounded quantifier somewhere inside. */
  unbounded: boolean
  /** Top-level alternative texts of the group. */
  branches: string[]
  branchStart: number
}

const unboundedQuantifier = /^(\*|\+|\{\d+,\})/

function isLiteral(branch: string): boolean {
  return !/[\\[\].*+?{}()^$|]/.test(branch)
}

/** Branches that can match the same text; only plain literals are judged, anything else is suspect. */
function branchesOverlap(branches: string[]): boolean {
  if (branches.length < 2) return false
  if (!branches.every(isLiteral)) return true
  return branches.some((left, leftIndex) =>
    branches.some((right, rightIndex) => leftIndex !== rightIndex && right.startsWith(left)),
  )
}

function skipGroupPrefix(pattern: string, start: number): number {
  if (pattern[start] !== '?') return start
  const prefix = /^\?(<[^>=!]+>|[:=!]|<[=!])/.exec(pattern.slice(start))
  return start + (prefix ? prefix[0].length : 1)
}

/** Why a pattern may backtrack catastrophically, or undefined when it looks safe. */
export function findRegexRisk(pattern: string): string | undefined {
  const stack: GroupFrame[] = [{ unbounded: false, branches: [], branchStart: 0 }]
  let inClass = false
  for (let index = 0; index < pattern.length; index++) {
    const character = pattern[index]!
    if (character === '\\') {
      index++
      continue
    }
    if (inClass) {
      if (character === ']') inClass = false
      continue
    }
    const frame = stack.at(-1)!
    if (character === '[') {
      inClass = true
    } else if (character === '(') {
      const start = skipGroupPrefix(pattern, index + 1)
      stack.push({ unbounded: false, branches: [], branchStart: start })
      index = start - 1
    } else if (character === '|') {
      frame.branches.push(pattern.slice(frame.branchStart, index))
      frame.branchStart = index + 1
    } else if (character === ')' && stack.length > 1) {
      stack.pop()
      frame.branches.push(pattern.slice(frame.branchStart, index))
      const repeated = unboundedQuantifier.test(pattern.slice(index + 1))
      if (repeated && frame.unbounded) return 'nested quantifier: a repeated group holds a repeated part'
      if (repeated && branchesOverlap(frame.branches))
        return 'repeated alternation whose branches can match the same text (use a character class)'
      const parent = stack.at(-1)!
      parent.unbounded ||= frame.unbounded || repeated
    } else if (unboundedQuantifier.test(pattern.slice(index))) {
      frame.unbounded = true
    }
  }
  return undefined
}
