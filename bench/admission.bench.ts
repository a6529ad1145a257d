/**
 * The admission's cost per turn: `admit` for the doors a turn passes (a WebSocket `user_input` of a
 * chat client; an `audience` frame of one message whose roles are lowered and whose budget is
 * charged; a connector's message through its guarded host), a million calls each, median of 5
 * runs, in nanoseconds per call. Compared with what a turn costs the server (hundreds of
 * microseconds of CPU, docs in BENCHMARKS.md), the admission must not show.
 * Run: node --import tsx bench/admission.bench.ts
 */
import { createAdmission, createRateLimitedLog, guardConnectorHost } from '../src/admission/index.js'
import { createLogger } from '../src/shared/logger.js'

const calls = 1_000_000
const runs = 5

function measure(name: string, call: () => void, count = calls): void {
  const results: number[] = []
  for (let run = 0; run < runs; run++) {
    const started = process.hrtime.bigint()
    for (let index = 0; index < count; index++) call()
    results.push(Number(process.hrtime.bigint() - started) / count)
  }
  results.sort((left, right) => left - right)
  console.log(
    `${name.padEnd(52)} ${results[2]!.toFixed(0).padStart(6)} ns/call (best ${results[0]!.toFixed(0)})`,
  )
}

const admission = createAdmission()
const unlimited = { take: () => ({ ok: true as const }) }
const client = { kind: 'client' as const, budget: unlimited }
const message = { id: 'm', speaker: { id: 'u', role: 'owner' as const }, text: 'hello', gift: { name: 'g' } }

measure('ws_user_input, chat client, own session', () => {
  admission.admit({ door: 'ws_user_input', caller: client, session: 'default' })
})
measure('ws_user_input, chat client, a connector session (refused)', () => {
  admission.admit({ door: 'ws_user_input', caller: client, session: 'onebot:qq:group:1' })
})
measure('ws_audience, one message, roles lowered, budget', () => {
  admission.admit({ door: 'ws_audience', caller: client, session: 'default', messages: [message] })
})

const host = guardConnectorHost({
  host: {
    audience: { send: () => ({ accepted: 1, dropped: [] }) },
    sessions: { follow: () => () => {} },
    run: async () => {},
  },
  connector: { kind: 'twitch', name: 'tw', index: 0 },
  readTurnsPerMinute: () => Number.MAX_SAFE_INTEGER,
  admission,
  log: createRateLimitedLog({ logger: createLogger({ level: 'silent' }) }),
})
const input = { session: 'twitch:tw:channel', messages: [{ id: 'm', speaker: { id: 'u' }, text: 'hi' }] }
// The budget keeps a minute of timestamps (one per message admitted): 100,000 calls per run.
measure('connector message through the guarded host', () => host.audience.send(input), 100_000)
