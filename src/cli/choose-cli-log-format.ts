/**
 * How the CLI's log lines look. People read them: every command writes readable lines unless asked
 * for JSON (`--log-format json` anywhere among its arguments, or `CHARPIPE_LOG_FORMAT=json`).
 * `serve` alone keeps JSON when its log does not go to a terminal, since a server's log usually goes
 * to a collector. The choice travels in `CHARPIPE_LOG_FORMAT`, so a relaunched `serve` keeps it.
 */
import type { LogFormat } from '../shared/logger.js'

const formats: readonly string[] = ['json', 'pretty']

export interface ChooseCliLogFormatResult {
  /** The arguments without `--log-format`. */
  args: string[]
  /** Set when the option was given or the command's default applies. */
  format?: LogFormat
  error?: string
}

export function chooseCliLogFormat(command: string, args: readonly string[]): ChooseCliLogFormatResult {
  const rest: string[] = []
  let asked: string | undefined
  for (let index = 0; index < args.length; index++) {
    const arg = args[index]!
    if (arg === '--') {
      rest.push(...args.slice(index))
      break
    }
    if (arg === '--log-format') asked = args[++index] ?? ''
    else if (arg.startsWith('--log-format=')) asked = arg.slice('--log-format='.length)
    else rest.push(arg)
  }
  if (asked !== undefined) {
    if (!formats.includes(asked))
      return { args: rest, error: `--log-format must be json or pretty, got "${asked}"` }
    return { args: rest, format: asked as LogFormat }
  }
  if (command === 'serve' || process.env.CHARPIPE_LOG_FORMAT) return { args: rest }
  return { args: rest, format: 'pretty' }
}
