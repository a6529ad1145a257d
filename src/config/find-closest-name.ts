/**
 * "Did you mean …?" for names a user typed: a field (`modle`), a provider (`deepseak`), a processor
 * id (`token-limiterr`) or a file (`custom.yml`). Names are short, so a plain dynamic-programming
 * table is cheap enough.
 */

/**
 * The number of single-character insertions, deletions, substitutions and swaps of two neighbours
 * from `from` to `to` (optimal string alignment: `modle` → `model` is one swap, the commonest slip).
 */
export function measureEditDistance(from: string, to: string): number {
  if (from === to) return 0
  let beforePrevious: number[] = []
  let previous = Array.from({ length: to.length + 1 }, (_, index) => index)
  for (let row = 1; row <= from.length; row++) {
    const current = [row]
    for (let column = 1; column <= to.length; column++) {
      const substitution = previous[column - 1]! + (from[row - 1] === to[column - 1] ? 0 : 1)
      let distance = Math.min(previous[column]! + 1, current[column - 1]! + 1, substitution)
      const swapped = from[row - 1] === to[column - 2] && from[row - 2] === to[column - 1]
      if (row > 1 && column > 1 && swapped) distance = Math.min(distance, beforePrevious[column - 2]! + 1)
      current.push(distance)
    }
    beforePrevious = previous
    previous = current
  }
  return previous[to.length]!
}

export interface FindClosestNameOptions {
  /** Largest distance still suggested. @default a third of the name's length, at least 1, at most 3 */
  maxDistance?: number
}

/** The candidate nearest to `name` (case-insensitive), or undefined when none is near enough. */
export function findClosestName(
  name: string,
  candidates: Iterable<string>,
  options: FindClosestNameOptions = {},
): string | undefined {
  const wanted = name.toLowerCase()
  const limit = options.maxDistance ?? Math.min(3, Math.max(1, Math.floor(wanted.length / 3)))
  let best: string | undefined
  let bestDistance = Number.POSITIVE_INFINITY
  for (const candidate of candidates) {
    if (candidate === name) continue
    const distance = measureEditDistance(wanted, candidate.toLowerCase())
    if (distance < bestDistance) {
      best = candidate
      bestDistance = distance
    }
  }
  return bestDistance <= limit ? best : undefined
}

/** ` (did you mean \`x\`?)` when a candidate is near, otherwise an empty string. */
export function suggestClosestName(name: string, candidates: Iterable<string>): string {
  const closest = findClosestName(name, candidates)
  return closest === undefined ? '' : ` (did you mean \`${closest}\`?)`
}
