/** Turns the raw measurements of one concurrency level into the figures of the table. */
export interface LevelResult {
  sessions: number
  rounds: number
  errors: number
  sentences: number
  addedP50Ms: number
  addedP99Ms: number
  addedMaxMs: number
  serverShareP50Ms: number
  serverShareP99Ms: number
  seconds: number
}

export function percentile(sorted: number[], fraction: number): number {
  if (sorted.length === 0) return Number.NaN
  return sorted[Math.min(sorted.length - 1, Math.floor(fraction * sorted.length))]!
}

export function summarizeLevel(input: {
  sessions: number
  rounds: number
  seconds: number
  added: number[]
  serverShare: number[]
  errors: number
  sentences: number
}): LevelResult {
  const sorted = [...input.added].sort((left, right) => left - right)
  const share = [...input.serverShare].sort((left, right) => left - right)
  return {
    sessions: input.sessions,
    rounds: input.rounds,
    errors: input.errors,
    sentences: input.sentences,
    addedP50Ms: percentile(sorted, 0.5),
    addedP99Ms: percentile(sorted, 0.99),
    addedMaxMs: sorted.at(-1) ?? Number.NaN,
    serverShareP50Ms: percentile(share, 0.5),
    serverShareP99Ms: percentile(share, 0.99),
    seconds: input.seconds,
  }
}
