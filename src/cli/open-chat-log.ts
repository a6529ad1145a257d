/**
 * Where `charpipe chat` sends log lines: a file, so that retries and upstream errors do not land in
 * the middle of the conversation. The chat prints one short line after a turn that logged warnings
 * or errors, pointing at the file.
 */
import { mkdirSync } from 'node:fs'
import { dirname } from 'node:path'
import { pino } from 'pino'
import { formatLogLine } from '../shared/format-log-line.js'
import { chooseLogFormat, createLogger, type Logger } from '../shared/logger.js'

export interface LogNotice {
  level: 'warn' | 'error'
  message: string
}

export interface ChatLog {
  path: string
  logger: Logger
  /** The warnings and errors logged since the last call, oldest first. */
  takeNotices(): LogNotice[]
  close(): void
}

/** Opens (appends to) the log file; lines are readable unless `CHARPIPE_LOG_FORMAT=json`. */
export function openChatLog(path: string): ChatLog {
  mkdirSync(dirname(path), { recursive: true })
  const file = pino.destination({ dest: path, append: true, sync: true })
  const pretty = chooseLogFormat(true) === 'pretty'
  let notices: LogNotice[] = []
  const destination = {
    write(line: string) {
      file.write(pretty ? formatLogLine(line) : line)
      try {
        const record = JSON.parse(line) as { level?: number; msg?: string }
        const level = record.level ?? 0
        if (level >= 40) notices.push({ level: level >= 50 ? 'error' : 'warn', message: record.msg ?? '' })
      } catch {
        // Not a record: nothing to count.
      }
    },
  }
  return {
    path,
    logger: createLogger({ destination, format: 'json' }),
    takeNotices() {
      const taken = notices
      notices = []
      return taken
    },
    close: () => file.end(),
  }
}

/** `(1 error, 2 warnings in data/chat.log: cannot reach …)`, or undefined when nothing was logged. */
export function summarizeNotices(notices: readonly LogNotice[], path: string): string | undefined {
  if (notices.length === 0) return undefined
  const plural = (count: number, word: string) => `${count} ${word}${count === 1 ? '' : 's'}`
  const errors = notices.filter((notice) => notice.level === 'error').length
  const warnings = notices.length - errors
  const counts = [errors && plural(errors, 'error'), warnings && plural(warnings, 'warning')].filter(Boolean)
  const first = notices[0]!.message.replace(/\s+/g, ' ')
  const shown = first.length > 100 ? `${first.slice(0, 99)}…` : first
  return `(${counts.join(', ')} in ${path}${shown ? `: ${shown}` : ''})`
}
