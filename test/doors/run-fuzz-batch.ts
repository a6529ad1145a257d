/**
 * One door's batch of generated cases: each case checked by `check`, then the process held to its
 * health (`FuzzServer.expectHealthyAfter`: the loop never held past the bound, no rejection left
 * unhandled, `/healthz` answered) and to what `after` asks of the server once the batch is over.
 */
import fc from 'fast-check'
import type { FuzzServer } from './start-fuzz-server.js'
import { watchProcessHealth } from './watch-process-health.js'

export interface FuzzBatchOptions {
  numRuns: number
  /** What the server must still do or hold after the batch (its seeds kept, a turn taken). */
  after?: () => Promise<void>
}

export async function runFuzzBatch<Case>(
  fuzz: FuzzServer,
  batch: string,
  cases: fc.Arbitrary<Case>,
  check: (generated: Case) => Promise<void>,
  options: FuzzBatchOptions,
): Promise<void> {
  const health = watchProcessHealth()
  try {
    await fc.assert(fc.asyncProperty(cases, check), { numRuns: options.numRuns, endOnFailure: true })
    await fuzz.expectHealthyAfter(batch, health.stop())
    await options.after?.()
  } finally {
    health.stop()
  }
}
