/**
 * Helpers shared by the provider tests: a logger whose lines can be inspected, event collection
 * that keeps the error, and the path of the recorded upstream fixtures.
 */
import { fileURLToPath } from 'node:url'
import { CharpipeError } from '../shared/errors.js'
import { createLogger, type Logger } from '../shared/logger.js'
import type { ProviderEvent } from './types.js'

export interface CapturedLogger {
  logger: Logger
  lines: { level: number; msg: string; [key: string]: unknown }[]
}

export function captureLogger(): CapturedLogger {
  const lines: CapturedLogger['lines'] = []
  const logger = createLogger({
    level: 'debug',
    destination: { write: (line: string) => lines.push(JSON.parse(line)) },
  })
  return { logger, lines }
}

/** pino's numeric levels. */
export const logLevels = { debug: 20, info: 30, warn: 40, error: 50 } as const

export interface CollectResult {
  events: ProviderEvent[]
  error: CharpipeError | undefined
  text: string
  reasoning: string
}

export async function collectEvents(stream: AsyncIterable<ProviderEvent>): Promise<CollectResult> {
  const events: ProviderEvent[] = []
  let error: CharpipeError | undefined
  try {
    for await (const event of stream) events.push(event)
  } catch (caught) {
    if (!CharpipeError.isInstance(caught)) throw caught
    error = caught
  }
  const join = (type: 'text-delta' | 'reasoning-delta') =>
    events.map((event) => (event.type === type ? event.text : '')).join('')
  return { events, error, text: join('text-delta'), reasoning: join('reasoning-delta') }
}

/** A recorded upstream fixture, kept in `__fixtures__/upstream/` with its provenance (README there). */
export function upstreamFixture(name: string): string {
  return fileURLToPath(new URL(`./__fixtures__/upstream/${name}`, import.meta.url))
}

/** Polls until `check` passes (for server-side observations that happen asynchronously). */
export async function waitUntil(check: () => boolean, what: string, limitMs = 5000): Promise<void> {
  const started = Date.now()
  while (!check()) {
    if (Date.now() - started > limitMs) throw new Error(`timed out waiting until ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}
