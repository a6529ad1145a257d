/**
 * `charpipe chat [--config FILE] [--session ID]`: a conversation in the terminal. Each sentence is
 * printed with its emotion as it arrives (`[开心] 你好呀～`). Ctrl-C interrupts the running reply; a
 * second Ctrl-C, or Ctrl-C at the prompt, exits. Lines from piped stdin are answered one by one.
 */
import { createInterface } from 'node:readline'
import { parseArgs } from 'node:util'
import { createCharpipe } from '../../engine/index.js'
import { CharpipeError } from '../../shared/errors.js'
import { loadCliConfig, runCommand } from '../load-cli-config.js'

export const summary = 'Talk with the character in the terminal (sentences with emotions as they arrive)'
export const usage = 'charpipe chat [--config FILE] [--session ID]'

const quitCommands = new Set(['/quit', '/exit'])

export function run(args: string[]): Promise<number> {
  return runCommand(async () => {
    let values: { config?: string; session: string }
    try {
      values = parseArgs({
        args,
        options: {
          config: { type: 'string' },
          session: { type: 'string', default: 'default' },
        },
      }).values as typeof values
    } catch (error) {
      console.error(`charpipe chat: ${(error as Error).message}\nusage: ${usage}`)
      return 2
    }
    const { config } = await loadCliConfig(values.config)
    let charpipe: Awaited<ReturnType<typeof createCharpipe>>
    try {
      charpipe = await createCharpipe(config)
    } catch (error) {
      console.error(
        CharpipeError.isInstance(error) ? error.message : `charpipe chat: ${(error as Error).message}`,
      )
      return 2
    }
    const session = values.session
    const interactive = Boolean(process.stdin.isTTY)
    const lines = createInterface({ input: process.stdin, output: process.stdout, terminal: interactive })
    let replying = false
    let interruptRequested = false
    let quitting = false

    const quit = () => {
      quitting = true
      lines.close()
    }
    // Ctrl-C: interrupt the reply; at the prompt or a second time while interrupting, leave.
    const onInterrupt = () => {
      if (replying && !interruptRequested) {
        interruptRequested = true
        void charpipe.interrupt(session)
        return
      }
      quit()
      process.stdout.write('\n')
    }
    lines.on('SIGINT', onInterrupt)
    process.on('SIGINT', onInterrupt)

    console.log(
      `${config.character.name} (${config.llm.provider}) · session ${session} · Ctrl-C interrupts, /quit leaves`,
    )
    if (interactive) lines.prompt()
    for await (const line of lines) {
      const text = line.trim()
      if (quitCommands.has(text)) break
      if (text) {
        replying = true
        interruptRequested = false
        for await (const event of charpipe.generate({ session, text })) {
          if (event.type === 'llm_sentence') console.log(`[${event.emotion}] ${event.text}`)
          else if (event.type === 'tool_call')
            console.log(`(tool ${event.name} ${JSON.stringify(event.arguments)})`)
          else if (event.type === 'llm_error' && event.code !== 'interrupted_by_new_input') {
            console.error(`error: ${event.code}: ${event.message}`)
          } else if (event.type === 'llm_done' && event.interrupted) console.log('(interrupted)')
        }
        replying = false
      }
      if (quitting) break
      if (interactive) lines.prompt()
    }
    process.off('SIGINT', onInterrupt)
    lines.close()
    await charpipe.close()
    return 0
  })
}
