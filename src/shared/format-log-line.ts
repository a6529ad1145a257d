/**
 * Log lines for a person at a terminal: `12:03:04.567 WARN  engine/providers: retrying key=value …`,
 * one line per record, made from the JSON line pino writes (so scrubbing of secrets has already
 * happened). Machines get the JSON lines unchanged.
 */

const levelNames: Record<number, string> = {
  10: 'TRACE',
  20: 'DEBUG',
  30: 'INFO',
  40: 'WARN',
  50: 'ERROR',
  60: 'FATAL',
}

// Shown in the line's head, not repeated among the key=value pairs.
const headKeys = new Set(['level', 'time', 'name', 'msg', 'module', 'component', 'pid', 'hostname'])

function formatTime(time: unknown): string {
  const date = typeof time === 'number' ? new Date(time) : new Date()
  const pad = (value: number, width = 2) => String(value).padStart(width, '0')
  return `${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}.${pad(date.getMilliseconds(), 3)}`
}

function formatValue(value: unknown): string {
  if (typeof value === 'string') return /^[^\s"=]+$/.test(value) ? value : JSON.stringify(value)
  if (value !== null && typeof value === 'object') {
    const error = value as { type?: unknown; message?: unknown; code?: unknown }
    // An Error as the logger scrubs it: its message (and code) say more than its shape.
    if (typeof error.type === 'string' && typeof error.message === 'string') {
      return JSON.stringify(error.code ? `${error.message} (${String(error.code)})` : error.message)
    }
  }
  return JSON.stringify(value) ?? String(value)
}

/** One readable line (with its newline) for one JSON log line; text that is not JSON passes through. */
export function formatLogLine(jsonLine: string): string {
  let record: Record<string, unknown>
  try {
    record = JSON.parse(jsonLine) as Record<string, unknown>
  } catch {
    return jsonLine.endsWith('\n') ? jsonLine : `${jsonLine}\n`
  }
  const level = levelNames[record.level as number] ?? String(record.level)
  const where = [record.module, record.component].filter((part) => typeof part === 'string').join('/')
  const pairs = Object.entries(record)
    .filter(([key, value]) => !headKeys.has(key) && value !== undefined)
    .map(([key, value]) => `${key}=${formatValue(value)}`)
  const message = typeof record.msg === 'string' ? record.msg.replace(/\s*\n\s*/g, ' ') : ''
  const head = `${formatTime(record.time)} ${level.padEnd(5)} ${where ? `${where}: ` : ''}${message}`
  return `${[head, ...pairs].join(' ')}\n`
}

export interface TextDestination {
  write(text: string): unknown
}

/** A pino destination that writes readable lines to `target` instead of JSON. */
export function createPrettyDestination(target: TextDestination): TextDestination {
  return {
    write(text: string) {
      // pino writes one record per call; split anyway in case a caller batches.
      const lines = text.split('\n').filter((line) => line.length > 0)
      return target.write(lines.map(formatLogLine).join(''))
    },
  }
}
