/** Runs an async operation `iterations` times in sequence and returns its latency percentiles. */
export interface LatencyResult {
  iterations: number
  medianMs: number
  p99Ms: number
  /** Operations per second over the whole run. */
  perSecond: number
}

export async function measureLatency(
  iterations: number,
  operation: (index: number) => Promise<unknown>,
): Promise<LatencyResult> {
  const samples = new Float64Array(iterations)
  const started = performance.now()
  for (let index = 0; index < iterations; index++) {
    const before = performance.now()
    await operation(index)
    samples[index] = performance.now() - before
  }
  const total = performance.now() - started
  samples.sort()
  const at = (quantile: number) => samples[Math.min(iterations - 1, Math.floor(quantile * iterations))]!
  return { iterations, medianMs: at(0.5), p99Ms: at(0.99), perSecond: (iterations / total) * 1000 }
}
