/**
 * The one logger (pino). Secret-looking fields are censored by key, and every string that is logged
 * is scrubbed of the configured secrets and of key-shaped tokens, so an upstream that echoes a key in
 * an error body cannot put it in a log line.
 */
import { createRequire } from 'node:module'
import type { Logger, LoggerOptions, pino } from 'pino'
import { createPrettyDestination, formatLogLine, type TextDestination } from './format-log-line.js'
import { isSecretKey, MASK, redactText } from './redact.js'

export type { Logger } from 'pino'

// pino (with its serializers and stream) is loaded when the first logger is made, not with
// `import('charpipe')`: a library user who never logs does not pay for it. It is CommonJS, so
// `require` hands out the same instance an `import` would.
const require = createRequire(import.meta.url)
let loadedPino: typeof pino | undefined
const loadPino = (): typeof pino => {
  loadedPino ??= (require('pino') as typeof import('pino')).pino
  return loadedPino
}

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
  if (value instanceof Error) return scrubError(value, depth)
  if (Array.isArray(value)) return value.map((item) => scrubValue(item, depth + 1))
  const result: Record<string, unknown> = {}
  for (const [key, item] of Object.entries(value)) {
    result[key] = isSecretKey(key) && item ? MASK : scrubValue(item, depth + 1)
  }
  return result
}

/**
 * An Error as a plain object pino can write, scrubbed like any other text: its name, message, code,
 * stack and cause (an error's cause is where an upstream failure's reason is), plus its own fields
 * (an HTTP status, config issues). pino's own error serializer only looks at the `err` key, and a
 * scrubbed copy is needed anyway, so the shape is made here.
 */
function scrubError(error: Error, depth: number): Record<string, unknown> {
  const result: Record<string, unknown> = { type: error.name, message: scrubSecrets(error.message) }
  for (const [key, item] of Object.entries(error)) {
    if (key !== 'cause') result[key] = isSecretKey(key) && item ? MASK : scrubValue(item, depth + 1)
  }
  if (typeof error.stack === 'string') result.stack = scrubSecrets(error.stack)
  if (error.cause !== undefined) result.cause = scrubValue(error.cause, depth + 1)
  if (error instanceof AggregateError) result.errors = scrubValue(error.errors, depth + 1)
  return result
}

/** The levels `CHARPIPE_LOG_LEVEL` accepts, most detailed first. */
const logLevels: readonly string[] = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent']

export type LogFormat = 'json' | 'pretty'

export interface CreateLoggerOptions {
  level?: LoggerOptions['level']
  /** Where lines go; defaults to stderr so stdout stays free for CLI output. */
  destination?: pino.DestinationStream
  name?: string
  /**
   * `pretty`: one readable line per record (time, level, module, message, key=value); `json`: one
   * JSON object per line. @default `CHARPIPE_LOG_FORMAT`, else `pretty` when the lines go to a
   * terminal (stderr is a TTY) and `json` otherwise
   */
  format?: LogFormat
}

/** The format asked for by `CHARPIPE_LOG_FORMAT`, or the one that suits where lines go. */
export function chooseLogFormat(toTerminal: boolean): LogFormat {
  const asked = process.env.CHARPIPE_LOG_FORMAT?.toLowerCase()
  if (asked === 'json' || asked === 'pretty') return asked
  return toTerminal ? 'pretty' : 'json'
}

export function createLogger(options: CreateLoggerOptions = {}): Logger {
  const level = options.level ?? process.env.CHARPIPE_LOG_LEVEL ?? (process.env.VITEST ? 'silent' : 'info')
  if (!logLevels.includes(level)) {
    const where = options.level === undefined ? 'CHARPIPE_LOG_LEVEL' : 'the log level'
    throw new TypeError(`${where} "${level}" is not a log level; use one of ${logLevels.join(', ')}`)
  }
  const createPino = loadPino()
  const destination = options.destination ?? createPino.destination(2)
  const format = options.format ?? chooseLogFormat(!options.destination && Boolean(process.stderr.isTTY))
  return createPino(
    {
      name: options.name ?? 'charpipe',
      level,
      base: undefined,
      // Errors are already plain objects (scrubError): pino's own `err` serializer would flatten
      // the cause into the message and name the type `Object`.
      serializers: { err: (value: unknown) => value },
      hooks: {
        logMethod(args, method) {
          method.apply(this, args.map((arg) => scrubValue(arg)) as Parameters<typeof method>)
        },
      },
    },
    format === 'pretty' ? (createPrettyDestination(destination) as pino.DestinationStream) : destination,
  )
}

/**
 * A logger for one part of a module (`providers` of `engine`): the parent's `module` stays and the
 * part is bound as `component`, since pino would write a key bound twice twice.
 */
export function createChildLogger(parent: Logger, part: string): Logger {
  // Made once per parent and part: a pino child costs tens of microseconds, and some parts take
  // theirs on every turn. Nothing changes a logger's level once made, so a kept child stays true.
  let children = childLoggers.get(parent)
  if (!children) {
    children = new Map()
    childLoggers.set(parent, children)
  }
  let child = children.get(part)
  if (!child) {
    const bound = parent.bindings()
    child =
      bound.module === undefined
        ? parent.child({ module: part })
        : bound.component === undefined
          ? parent.child({ component: part })
          : parent
    children.set(part, child)
  }
  return child
}

const childLoggers = new WeakMap<Logger, Map<string, Logger>>()

let rootLogger: Logger | undefined
let defaultLogger: { level: string; logger: Logger } | undefined

/**
 * Where a library's lines go when its program chose no logger: Node's process warnings, one line
 * each on stderr (`CharpipeWarning`), which the program can handle (`process.on('warning')`) or
 * silence (`--no-warnings`) as it does any other library's.
 */
const warningDestination: TextDestination = {
  write(text: string) {
    for (const line of text.split('\n')) {
      if (line.length > 0) process.emitWarning(formatLogLine(line).trimEnd(), { type: 'CharpipeWarning' })
    }
  },
}

/**
 * The logger of a program that chose none: `CHARPIPE_LOG_LEVEL` when set, else warnings and errors
 * only, as process warnings, so a library user's mistake (a listener that throws) is never silent.
 * Tests stay silent unless they ask, as in `createLogger`. Made again when the level asked changes.
 */
function readDefaultLogger(): Logger {
  const asked = process.env.CHARPIPE_LOG_LEVEL
  const level = asked ?? (process.env.VITEST ? 'silent' : 'warn')
  if (defaultLogger?.level === level) return defaultLogger.logger
  const logger =
    asked !== undefined || level === 'silent'
      ? createLogger({ level })
      : createLogger({ level, destination: warningDestination as pino.DestinationStream, format: 'json' })
  defaultLogger = { level, logger }
  return logger
}

/**
 * The process-wide logger; modules take a child of it with their own `module` binding. Until a
 * program chooses one (`setLogger`, or a `logger` option), a library reports only its warnings and
 * errors, as process warnings on stderr; `CHARPIPE_LOG_LEVEL` chooses the level all the same.
 */
export function getLogger(module?: string): Logger {
  const root = rootLogger ?? readDefaultLogger()
  return module ? root.child({ module }) : root
}

/**
 * Replaces the process-wide logger (the CLI sets the level; tests capture lines); `undefined` goes
 * back to the logger of a program that chose none.
 */
export function setLogger(logger: Logger | undefined): void {
  rootLogger = logger
}

/** The logger a program chose with `setLogger`, if any: what to put back after replacing it. */
export function readChosenLogger(): Logger | undefined {
  return rootLogger
}

/** A program's own logging: `info` lines to stderr (or `CHARPIPE_LOG_LEVEL`), unless one was set. */
export function useProgramLogger(): void {
  if (!rootLogger) setLogger(createLogger())
}
