/**
 * One door's batch of generated cases: each case checked by `check`, then the process held to its
 * health (`FuzzServer.expectHealthyAfter`: the loop never held past the bound, no rejection left
 * unhandled, `/healthz` answered) and to what `after` asks of the server once the batch is over.
 */
import fc from 'fast-check'
import { fuzzedPathSegment, fuzzedQueryValue } from '../support/fuzzed-inputs.js'
import { expectAnswered } from './expect-answered.js'
import { sendRequest } from './send-request.js'
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

/** A route with an id (and a query value) in its path. */
export interface PathDoor {
  name: string
  method: 'GET' | 'DELETE'
  path: (id: string, value: string) => string
}

/** A batch of generated ids and query values in `door`'s path, sent with `token`. */
export function runPathBatch(
  fuzz: FuzzServer,
  door: PathDoor,
  token: string,
  options: FuzzBatchOptions,
): Promise<void> {
  return runFuzzBatch(
    fuzz,
    door.name,
    fc.tuple(fuzzedPathSegment, fuzzedQueryValue),
    async ([id, value]) => {
      const answer = await sendRequest({
        url: `${fuzz.url}${door.path(id || 'x', value)}`,
        method: door.method,
        headers: { authorization: `Bearer ${token}` },
      })
      // A path too long for the server's header limit is refused by Node itself (431), without a body.
      if (answer.status === 431) return
      expectAnswered(door.name, `${id.slice(0, 100)} ${value.slice(0, 100)}`, answer.status, answer.text)
    },
    options,
  )
}
