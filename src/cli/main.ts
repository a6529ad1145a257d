/**
 * `charpipe <command>`: each command lives in its own module, loaded only when asked for, so
 * `charpipe mock-llm` does not load SQLite and `charpipe validate` does not load the server.
 */
export interface CommandModule {
  /** One line for the help text. */
  summary: string
  usage: string
  /** Returns the process exit code. */
  run(args: string[]): Promise<number>
}

import { useProgramLogger } from '../shared/logger.js'
import { chooseCliLogFormat } from './choose-cli-log-format.js'

const commands: Record<string, () => Promise<CommandModule>> = {
  serve: () => import('./commands/serve.js'),
  chat: () => import('./commands/chat.js'),
  preview: () => import('./commands/preview.js'),
  doctor: () => import('./commands/doctor.js'),
  'mock-llm': () => import('./commands/mock-llm.js'),
  kb: () => import('./commands/kb.js'),
  card: () => import('./commands/card.js'),
  validate: () => import('./commands/validate.js'),
}

async function printHelp(): Promise<void> {
  const lines = ['usage: charpipe <command> [options]', '', 'commands:']
  for (const [name, load] of Object.entries(commands)) {
    const command = await load()
    lines.push(`  ${name.padEnd(10)} ${command.summary}`)
  }
  lines.push(
    '',
    'Run `charpipe <command> --help` for its options.',
    'Any command: --log-format json|pretty (default: readable lines; serve: JSON when not at a terminal).',
  )
  console.log(lines.join('\n'))
}

// `charpipe … | head` closes stdout early: stop quietly, as other command-line tools do.
function exitQuietlyWhenStdoutCloses(): void {
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error
    process.exit(typeof process.exitCode === 'number' ? process.exitCode : 0)
  })
}

export async function main(argv: string[]): Promise<number> {
  exitQuietlyWhenStdoutCloses()
  const [name, ...rest] = argv
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    await printHelp()
    return name ? 0 : 1
  }
  // Own keys only: `charpipe toString` is an unknown command, not Object.prototype's function.
  const load = Object.hasOwn(commands, name) ? commands[name] : undefined
  if (!load) {
    console.error(`charpipe: unknown command "${name}". Commands: ${Object.keys(commands).join(', ')}`)
    return 2
  }
  const command = await load()
  if (rest.includes('--help') || rest.includes('-h')) {
    console.log(`usage: ${command.usage}\n\n${command.summary}`)
    return 0
  }
  const logFormat = chooseCliLogFormat(name, rest)
  if (logFormat.error) {
    console.error(`charpipe ${name}: ${logFormat.error}`)
    return 2
  }
  if (logFormat.format) process.env.CHARPIPE_LOG_FORMAT = logFormat.format
  // The library alone reports only its warnings and errors; the commands are a program and log.
  useProgramLogger()
  return command.run(logFormat.args)
}
