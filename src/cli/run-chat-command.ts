/**
 * The local commands of `charpipe chat`: a line starting with `/` is for the terminal, never sent
 * to the model (`//text` sends `/text`). They act on the conversation through the same library
 * calls the page uses: clearing a session, opening one with another character (and its greeting).
 */

export interface ChatTarget {
  session: string
  /** A key of `characters`; undefined: the default character. */
  character: string | undefined
}

export interface ChatCommandContext {
  target: ChatTarget
  /** The ids of `characters` (the default character is not among them). */
  characters: readonly string[]
  clear(target: ChatTarget): Promise<void>
  /** Opens the session with the target's character: prints its greeting when the session is new. */
  open(target: ChatTarget): Promise<void>
  print(line: string): void
}

export type ChatCommandResult =
  /** Not a command: send this text to the model. */
  { kind: 'say'; text: string } | { kind: 'done' } | { kind: 'quit' }

const help = [
  'Commands (not sent to the model):',
  '  /help              this list',
  '  /quit, /exit       leave the chat',
  '  /clear             forget this session’s conversation',
  '  /character [ID]    talk with another character (no ID: the default one); /characters lists them',
  '  /session [ID]      switch to another session (no ID: show the current one)',
  '  //text             send "/text" to the model',
]

function describeTarget(target: ChatTarget): string {
  return `session ${target.session} · character ${target.character ?? '(default)'}`
}

/** Runs `line` when it is a local command; says which text to send otherwise. */
export async function runChatCommand(line: string, context: ChatCommandContext): Promise<ChatCommandResult> {
  if (!line.startsWith('/')) return { kind: 'say', text: line }
  if (line.startsWith('//')) return { kind: 'say', text: line.slice(1) }
  const [name = '', ...rest] = line.slice(1).trim().split(/\s+/)
  const argument = rest.join(' ')
  const { target } = context
  switch (name.toLowerCase()) {
    case 'help':
    case '?':
      for (const text of help) context.print(text)
      return { kind: 'done' }
    case 'quit':
    case 'exit':
      return { kind: 'quit' }
    case 'clear':
      await context.clear(target)
      context.print(`(cleared ${describeTarget(target)})`)
      return { kind: 'done' }
    case 'characters':
      context.print(['(default)', ...context.characters].join('\n'))
      return { kind: 'done' }
    case 'character': {
      if (argument && !context.characters.includes(argument)) {
        const known =
          context.characters.length > 0 ? context.characters.join(', ') : 'none besides the default'
        context.print(`no character "${argument}" (characters: ${known})`)
        return { kind: 'done' }
      }
      target.character = argument || undefined
      context.print(`(${describeTarget(target)})`)
      await context.open(target)
      return { kind: 'done' }
    }
    case 'session':
      if (argument) {
        target.session = argument
        await context.open(target)
      }
      context.print(`(${describeTarget(target)})`)
      return { kind: 'done' }
    default:
      context.print(`unknown command /${name}: /help lists the commands; //text sends "/text"`)
      return { kind: 'done' }
  }
}
