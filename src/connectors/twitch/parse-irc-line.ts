/**
 * One IRC line with IRCv3 message tags, as Twitch chat sends them:
 * `@badges=moderator/1;bits=100 :nick!nick@nick.tmi.twitch.tv PRIVMSG #channel :hello`.
 * Tag values are unescaped (`\s` space, `\:` semicolon, `\\` backslash, `\r`, `\n`).
 */
export interface IrcMessage {
  tags: Record<string, string>
  /** The nick of a `nick!user@host` prefix, or the server name. */
  source?: string
  command: string
  params: string[]
}

export function parseIrcLine(line: string): IrcMessage | undefined {
  let rest = line.replace(/\r?\n$/, '')
  const tags: Record<string, string> = {}
  if (rest.startsWith('@')) {
    const space = rest.indexOf(' ')
    if (space < 0) return undefined
    for (const tag of rest.slice(1, space).split(';')) {
      const equals = tag.indexOf('=')
      if (equals < 0) tags[tag] = ''
      else tags[tag.slice(0, equals)] = unescapeTagValue(tag.slice(equals + 1))
    }
    rest = rest.slice(space + 1).trimStart()
  }
  let source: string | undefined
  if (rest.startsWith(':')) {
    const space = rest.indexOf(' ')
    if (space < 0) return undefined
    source = rest.slice(1, space).split('!')[0]
    rest = rest.slice(space + 1).trimStart()
  }
  const params: string[] = []
  const trailingAt = rest.indexOf(' :')
  const head = trailingAt >= 0 ? rest.slice(0, trailingAt) : rest
  const words = head.split(' ').filter((word) => word !== '')
  const command = words.shift()
  if (!command) return undefined
  params.push(...words)
  if (trailingAt >= 0) params.push(rest.slice(trailingAt + 2))
  return { tags, ...(source !== undefined ? { source } : {}), command: command.toUpperCase(), params }
}

function unescapeTagValue(value: string): string {
  return value.replace(/\\(.)?/g, (_match, next: string | undefined) => {
    switch (next) {
      case ':':
        return ';'
      case 's':
        return ' '
      case 'r':
        return '\r'
      case 'n':
        return '\n'
      case undefined:
        return ''
      default:
        return next
    }
  })
}
