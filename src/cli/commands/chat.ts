/**
 * `charpipe chat [--config FILE] [--session ID] [--character ID]`: a conversation in the terminal,
 * opened with the character's greeting when the session is new. Each sentence is printed with its
 * emotion as it arrives (`[开心] 你好呀～`). Ctrl-C interrupts the running reply; a
 * second Ctrl-C, or Ctrl-C at the prompt, exits. Lines from piped stdin are answered one by one.
 * Lines starting with `/` are local commands (`/help`, `/quit`, `/clear`, `/character ID`,
 * `/session ID`), never sent to the model.
 * Log lines go to a file, not between the lines of the conversation. What the model wrote (sentences,
 * tool calls, upstream error text) is printed without control characters, so a reply cannot move
 * the cursor, retitle the window or rewrite the screen with escape sequences.
 */
import { dirname, join } from 'node:path'
import { createInterface } from 'node:readline'
import { parseArgs } from 'node:util'
import { resolveProviderSettings } from '../../config/provider-registry.js'
import { createCharpipe } from '../../engine/index.js'
import { CharpipeError } from '../../shared/errors.js'
import { getLogger, setLogger } from '../../shared/logger.js'
import { stripUnsafeCharacters } from '../../shared/strip-unsafe-characters.js'
import { loadCliConfig, runCommand } from '../load-cli-config.js'
import { openChatLog, summarizeNotices } from '../open-chat-log.js'
import { type ChatCommandContext, type ChatTarget, runChatCommand } from '../run-chat-command.js'

export const summary = 'Talk with the character in the terminal (sentences with emotions as they arrive)'
export const usage =
  'charpipe chat [--config FILE] [--session ID] [--character ID] [--log-file FILE]\n\n' +
  '  --character ID   talk with a character of `characters` (default: the default character)\n' +
  '  --log-file FILE  where log lines go (default: chat.log beside the SQLite database)'

export function run(args: string[]): Promise<number> {
  return runCommand(async () => {
    let values: { config?: string; session: string; character?: string; 'log-file'?: string }
    try {
      values = parseArgs({
        args,
        options: {
          config: { type: 'string' },
          session: { type: 'string', default: 'default' },
          character: { type: 'string' },
          'log-file': { type: 'string' },
        },
      }).values as typeof values
    } catch (error) {
      console.error(`charpipe chat: ${(error as Error).message}\nusage: ${usage}`)
      return 2
    }
    const { config } = await loadCliConfig(values.config)
    const log = openChatLog(values['log-file'] ?? join(dirname(config.storage.sqlite_path), 'chat.log'))
    setLogger(log.logger)
    let charpipe: Awaited<ReturnType<typeof createCharpipe>>
    try {
      charpipe = await createCharpipe(config, { logger: getLogger('engine') })
    } catch (error) {
      log.close()
      console.error(
        CharpipeError.isInstance(error) ? error.message : `charpipe chat: ${(error as Error).message}`,
      )
      return 2
    }
    const target: ChatTarget = { session: values.session, character: values.character }
    const chosen = () => (target.character ? { character: target.character } : {})
    // A new session with a character that greets opens with its greeting, as the page does.
    const openSession = () => charpipe.sessions.open({ session: target.session, ...chosen() })
    const printGreeting = (opened: Awaited<ReturnType<typeof openSession>>) => {
      if (!opened.greeting) return
      const { emotion, content } = opened.greeting
      const character = (target.character && config.characters[target.character]) || config.character
      console.log(stripUnsafeCharacters(`[${emotion ?? character.default_emotion}] ${content}`))
    }
    const session = target.session
    let opened: Awaited<ReturnType<typeof openSession>>
    try {
      opened = await openSession()
    } catch (error) {
      await charpipe.close()
      log.close()
      console.error(`charpipe chat: ${CharpipeError.isInstance(error) ? error.message : String(error)}`)
      return 2
    }
    const characterName = values.character
      ? (config.characters[values.character]?.name ?? values.character)
      : config.character.name
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
        void charpipe.interrupt(target.session, chosen())
        return
      }
      quit()
      process.stdout.write('\n')
    }
    lines.on('SIGINT', onInterrupt)
    process.on('SIGINT', onInterrupt)

    const model = resolveProviderSettings(config.llm).model
    console.log(
      `${characterName} (${config.llm.provider}${model ? ` ${model}` : ''}) · session ${session} · log ${log.path} · Ctrl-C interrupts, /help lists commands, /quit leaves`,
    )
    printGreeting(opened)
    const commands: ChatCommandContext = {
      target,
      characters: Object.keys(config.characters),
      clear: (cleared) =>
        charpipe.sessions.clear({
          session: cleared.session,
          ...(cleared.character ? { character: cleared.character } : {}),
        }),
      open: async () => printGreeting(await openSession()),
      print: (text) => console.log(text),
    }
    if (interactive) lines.prompt()
    for await (const line of lines) {
      const command = await runChatCommand(line.trim(), commands)
      if (command.kind === 'quit') break
      const text = command.kind === 'say' ? command.text : ''
      if (text) {
        replying = true
        interruptRequested = false
        for await (const event of charpipe.generate({ session: target.session, text, ...chosen() })) {
          if (event.type === 'llm_sentence')
            console.log(stripUnsafeCharacters(`[${event.emotion}] ${event.text}`))
          else if (event.type === 'tool_call')
            console.log(stripUnsafeCharacters(`(tool ${event.name} ${JSON.stringify(event.arguments)})`))
          else if (event.type === 'llm_error' && event.code !== 'interrupted_by_new_input') {
            console.error(stripUnsafeCharacters(`error: ${event.code}: ${event.message}`))
          } else if (event.type === 'llm_done' && event.interrupted) console.log('(interrupted)')
        }
        replying = false
        const notice = summarizeNotices(log.takeNotices(), log.path)
        // A notice may quote the model (an unknown emotion label), so it is printed clean too.
        if (notice) console.error(stripUnsafeCharacters(notice))
      }
      if (quitting) break
      if (interactive) lines.prompt()
    }
    process.off('SIGINT', onInterrupt)
    lines.close()
    await charpipe.close()
    log.close()
    return 0
  })
}
