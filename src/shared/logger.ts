/**
 * The one logger (pino). Secret-looking fields are censored by key, and every string that is logged
 * is scrubbed of the configured secrets and of key-shaped tokens, so an upstream that echoes a key in
 * an error body cannot put it in a log line.
 */
import { type Logger, type LoggerOptions, pino } from 'pino'
import { isSecretKey, MASK, redactText } from './redact.js'

export type { Logger } from 'pino'

const knownSecrets = new Set<string>()

/** Adds configured secret values (API keys, tokens) that must never be printed. */
export function registerSecrets(values: Iterable<string | undefined | null>): void {
  for (const value of values) if (value && value.length >= 4) knownSecrets.add(value)
}

export function scrubSecrets(text: string): string {
  return redactText(text, knownSecrets)
}

function scrubValue(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return scrubSecrets(value)
  if (depth > 6 || value === null || typeof value !== 'object') return value
  if (value instanceof Error) {
    return {
      type: value.name,
      message: scrubSecrets(value.message),
      code: (value as { code?: unknown }).code,
    }
  }
  if (Array.isArray(value)) return value.map((item) => scrubValue(item, depth + 1))
  const result: Record<string, unknown> = {}
  for (const [key, item] of Object.entries(value)) {
    result[key] = isSecretKey(key) && item ? MASK : scrubValue(item, depth + 1)
  }
  return result
}

export interface CreateLoggerOptions {
  level?: LoggerOptions['level']
  /** Where lines go; defaults to stderr so stdout stays free for CLI output. */
  destination?: pino.DestinationStream
  name?: string
}

export function createLogger(options: CreateLoggerOptions = {}): Logger {
  const level = options.level ?? process.env.CHARPIPE_LOG_LEVEL ?? (process.env.VITEST ? 'silent' : 'info')
  return pino(
    {
      name: options.name ?? 'charpipe',
      level,
      base: undefined,
      hooks: {
        logMethod(args, method) {
          method.apply(this, args.map((arg) => scrubValue(arg)) as Parameters<typeof method>)
        },
      },
    },
    options.destination ?? pino.destination(2),
  )
}

let rootLogger: Logger | undefined

/** The process-wide logger; modules take a child of it with their own `module` binding. */
export function getLogger(module?: string): Logger {
  rootLogger ??= createLogger()
  return module ? rootLogger.child({ module }) : rootLogger
}

/** Replaces the process-wide logger (the CLI sets the level; tests capture lines). */
export function setLogger(logger: Logger): void {
  rootLogger = logger
}
