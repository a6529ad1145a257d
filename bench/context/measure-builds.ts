/**
 * Times repeated context builds: warm-up first, then `iterations` builds, reporting the median and
 * the 99th percentile in milliseconds.
 */
export interface MeasureBuildsResult {
  medianMs: number
  p99Ms: number
}

export async function measureBuilds(
  build: () => Promise<unknown>,
  iterations: number,
): Promise<MeasureBuildsResult> {
  for (let index = 0; index < Math.min(200, iterations); index++) await build()
  const times: number[] = []
  for (let index = 0; index < iterations; index++) {
    const started = performance.now()
    await build()
    times.push(performance.now() - started)
  }
  times.sort((left, right) => left - right)
  const at = (fraction: number) => times[Math.min(times.length - 1, Math.floor(fraction * times.length))]!
  return { medianMs: at(0.5), p99Ms: at(0.99) }
}
