/**
 * One Twitch channel's chat as a charpipe session (`twitch:<name>:<channel>`), over Twitch's IRC
 * WebSocket with tags: chat messages go to the session's audience selector; the selector's replies
 * are written back into chat only with `post_replies` (a voice character speaks them instead, to
 * the session's WebSocket clients). Without a token it reads anonymously (`justinfan…`). PING is
 * answered, RECONNECT dials again at once, drops are retried with backoff. The channel's session is
 * live (its character may speak first) once a chat message arrives, no idle turn runs while the
 * connection is down, and a reply made while it is down is dropped and logged, not sent later.
 *
 * Hand-written rather than a client library: the maintained one (@twurple/chat) cannot be pointed at
 * another port than 443/80, which tests and Twitch-compatible chat servers need, and tmi.js is no
 * longer maintained; the part of IRC that chat uses is small (parse-irc-line.ts).
 */
import type { TwitchConnectorConfig } from '../../config/schema.js'
import type { Logger } from '../../shared/logger.js'
import { createBoundedSet } from '../bounded-set.js'
import type { Connector, ConnectorHost } from '../connector-host.js'
import { createConnectorShell } from '../create-connector-shell.js'
import { type Backoff, keepSocketConnected } from '../keep-socket-connected.js'
import { splitReplyText } from '../split-reply-text.js'
import { convertTwitchMessage } from './convert-twitch-message.js'
import { type IrcMessage, parseIrcLine } from './parse-irc-line.js'

export const twitchChatUrl = 'wss://irc-ws.chat.twitch.tv:443'
const maxChatMessageChars = 450
/** Twitch's own limit for a line with tags; a longer one is no chat line. */
const maxLineChars = 16 * 1024

export interface CreateTwitchConnectorOptions {
  config: TwitchConnectorConfig
  host: ConnectorHost
  characterName: string
  logger: Logger
  backoff?: Backoff
}

export function createTwitchConnector(options: CreateTwitchConnectorOptions): Connector {
  const { config, host } = options
  const session = `twitch:${config.name}:${config.channel}`
  const token = config.oauth_token.replace(/^oauth:/, '')
  const login = token !== '' && config.username !== '' ? config.username.toLowerCase() : anonymousLogin()
  const botLogin = token !== '' ? login : ''
  const seen = createBoundedSet(5000)
  let ready = false

  const shell = createConnectorShell({
    kind: 'twitch',
    name: config.name,
    character: config.character,
    host,
    logger: options.logger,
    secrets: token ? [token] : [],
    linkName: 'the Twitch chat connection',
    ...(config.audience ? { audience: config.audience } : {}),
    reachable: () => ready,
    listSessions: () => [session],
  })

  const send = (line: string) => socket.send(`${line}\r\n`)

  const handleLine = (line: string) => {
    if (line.length > maxLineChars)
      return shell.refuse('line_too_long', `a line of ${line.length} characters`)
    const message = parseIrcLine(line)
    if (!message) return shell.refuse('not_irc', 'a line that is not an IRC message')
    switch (message.command) {
      case 'PING':
        send(`PONG :${message.params.at(-1) ?? 'tmi.twitch.tv'}`)
        return
      case 'RECONNECT':
        shell.log('info', {}, 'Twitch asked for a reconnect')
        socket.redial()
        return
      case '001':
        ready = true
        shell.markReady()
        shell.log('info', { channel: config.channel }, 'Twitch chat ready')
        return
      case 'NOTICE':
        if (/authentication failed|improperly formatted auth|invalid nick/i.test(message.params.at(-1) ?? ''))
          shell.markFailed(`Twitch refused the login: ${message.params.at(-1)}`)
        return
      case 'PRIVMSG':
        handleChatMessage(message)
        return
    }
  }

  const handleChatMessage = (message: IrcMessage) => {
    if ((message.params[0] ?? '').toLowerCase() !== `#${config.channel}`) return
    if ((message.source ?? '').toLowerCase() === login) return
    const converted = convertTwitchMessage({ message, characterName: options.characterName, botLogin })
    if (!converted || converted.text === '' || seen.has(converted.id)) return
    seen.add(converted.id)
    shell.countIn()
    shell.offer({ session, messages: [converted] })
  }

  // Each line on its own: one that cannot be read costs only itself, not the rest of its frame.
  const receiveLine = shell.guard(handleLine)

  const socket = keepSocketConnected({
    url: config.url || twitchChatUrl,
    backoff: options.backoff,
    onOpen: () => {
      send('CAP REQ :twitch.tv/tags twitch.tv/commands')
      if (token !== '') send(`PASS oauth:${token}`)
      send(`NICK ${login}`)
      send(`JOIN #${config.channel}`)
    },
    onMessage: shell.guard((text: string) => {
      for (const line of text.split('\r\n')) if (line !== '') receiveLine(line)
    }),
    onDown: (reason) => {
      ready = false
      if (shell.closed) return
      if (shell.state !== 'failed' || !shell.error?.startsWith('Twitch refused')) shell.markFailed(reason)
      shell.log('warn', { reason: shell.error }, 'Twitch chat connection down')
    },
  })
  shell.onClose(() => socket.close())

  shell.follow({
    session,
    postsReplies: config.post_replies,
    onReply: ({ text, replyingTo }) => {
      const [answered = ''] = replyingTo
      splitReplyText(text.replace(/\s+/g, ' '), maxChatMessageChars).forEach((part, index) => {
        const tag =
          index === 0 && /^[0-9a-f-]{8,64}$/i.test(answered) ? `@reply-parent-msg-id=${answered} ` : ''
        if (send(`${tag}PRIVMSG #${config.channel} :${part}`)) shell.countOut()
      })
    },
  })

  return { status: () => shell.status(), close: () => shell.close() }
}

function anonymousLogin(): string {
  return `justinfan${10_000 + Math.floor(Math.random() * 80_000)}`
}
