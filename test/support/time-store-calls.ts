/**
 * Times every command this process sends to Redis (ioredis) and every query to PostgreSQL (pg), from
 * the call to its answer, for figures on store latency under load (the reasoning behind
 * `storage.timeout_ms`). Measurement only: nothing asserts on these times.
 */
import { performance } from 'node:perf_hooks'
import { Redis } from 'ioredis'
import pg from 'pg'

export interface StoreCallTimes {
  redis: number[]
  postgres: number[]
  /** Stops timing (the drivers are as before). */
  stop(): void
}

export function summarizeTimes(samples: number[]) {
  const sorted = [...samples].sort((left, right) => left - right)
  const at = (quantile: number) => sorted[Math.min(sorted.length - 1, Math.floor(quantile * sorted.length))]
  const round = (value: number | undefined) => (value === undefined ? undefined : Math.round(value * 10) / 10)
  return { calls: sorted.length, p50: round(at(0.5)), p99: round(at(0.99)), max: round(sorted.at(-1)) }
}

export function timeStoreCalls(): StoreCallTimes {
  const times: StoreCallTimes = { redis: [], postgres: [], stop }
  type SendCommand = (this: Redis, command: { promise: Promise<unknown> }, ...rest: unknown[]) => unknown
  const sendCommand = Redis.prototype.sendCommand as unknown as SendCommand
  ;(Redis.prototype as unknown as { sendCommand: SendCommand }).sendCommand = function (command, ...rest) {
    const started = performance.now()
    const result = sendCommand.call(this, command, ...rest)
    command.promise.then(
      () => times.redis.push(performance.now() - started),
      () => {},
    )
    return result
  }
  type Query = (this: pg.Client, ...args: unknown[]) => unknown
  const query = pg.Client.prototype.query as unknown as Query
  ;(pg.Client.prototype as unknown as { query: Query }).query = function (...args) {
    const started = performance.now()
    const last = args.at(-1)
    if (typeof last === 'function') {
      args[args.length - 1] = (error: unknown, ...results: unknown[]) => {
        if (!error) times.postgres.push(performance.now() - started)
        return (last as (...values: unknown[]) => unknown)(error, ...results)
      }
      return query.apply(this, args)
    }
    const result = query.apply(this, args)
    if (result && typeof (result as Promise<unknown>).then === 'function') {
      ;(result as Promise<unknown>).then(
        () => times.postgres.push(performance.now() - started),
        () => {},
      )
    }
    return result
  }
  function stop() {
    ;(Redis.prototype as unknown as { sendCommand: SendCommand }).sendCommand = sendCommand
    ;(pg.Client.prototype as unknown as { query: Query }).query = query
  }
  return times
}
