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
import { redactText } from '../../shared/redact.js'
import { createBoundedSet } from '../bounded-set.js'
import {
  type Connector,
  type ConnectorHost,
  type ConnectorStatus,
  type FollowedEvent,
  readReplyingTo,
} from '../connector-host.js'
import { type Backoff, keepSocketConnected } from '../keep-socket-connected.js'
import { splitReplyText } from '../split-reply-text.js'
import { convertTwitchMessage } from './convert-twitch-message.js'
import { parseIrcLine } from './parse-irc-line.js'

export const twitchChatUrl = 'wss://irc-ws.chat.twitch.tv:443'
const maxChatMessageChars = 450

export interface CreateTwitchConnectorOptions {
  config: TwitchConnectorConfig
  host: ConnectorHost
  characterName: string
  logger: Logger
  backoff?: Backoff
}

export function createTwitchConnector(options: CreateTwitchConnectorOptions): Connector {
  const { config, host, logger } = options
  const session = `twitch:${config.name}:${config.channel}`
  const character = config.character || undefined
  const token = config.oauth_token.replace(/^oauth:/, '')
  const login = token !== '' && config.username !== '' ? config.username.toLowerCase() : anonymousLogin()
  const botLogin = token !== '' ? login : ''
  const seen = createBoundedSet(5000)
  let state: ConnectorStatus['state'] = 'connecting'
  let lastError: string | undefined
  let messagesIn = 0
  let messagesOut = 0
  let closed = false
  let ready = false

  const send = (line: string) => socket.send(`${line}\r\n`)

  const handleLine = (line: string) => {
    const message = parseIrcLine(line)
    if (!message) return
    switch (message.command) {
      case 'PING':
        send(`PONG :${message.params.at(-1) ?? 'tmi.twitch.tv'}`)
        return
      case 'RECONNECT':
        logger.info({ connector: config.name }, 'Twitch asked for a reconnect')
        socket.redial()
        return
      case '001':
        ready = true
        state = 'ready'
        lastError = undefined
        logger.info({ connector: config.name, channel: config.channel }, 'Twitch chat ready')
        return
      case 'NOTICE':
        if (
          /authentication failed|improperly formatted auth|invalid nick/i.test(message.params.at(-1) ?? '')
        ) {
          state = 'failed'
          lastError = `Twitch refused the login: ${message.params.at(-1)}`
        }
        return
      case 'PRIVMSG':
        handleChatMessage(message)
        return
    }
  }

  const handleChatMessage = (message: NonNullable<ReturnType<typeof parseIrcLine>>) => {
    if ((message.params[0] ?? '').toLowerCase() !== `#${config.channel}`) return
    if ((message.source ?? '').toLowerCase() === login) return
    const converted = convertTwitchMessage({ message, characterName: options.characterName, botLogin })
    if (!converted || converted.text === '' || seen.has(converted.id)) return
    seen.add(converted.id)
    messagesIn += 1
    void Promise.resolve(host.audience.send({ session, character, messages: [converted] })).catch(
      (error: Error) => logger.warn({ connector: config.name, err: error }, 'audience message refused'),
    )
  }

  const socket = keepSocketConnected({
    url: config.url || twitchChatUrl,
    backoff: options.backoff,
    onOpen: () => {
      send('CAP REQ :twitch.tv/tags twitch.tv/commands')
      if (token !== '') send(`PASS oauth:${token}`)
      send(`NICK ${login}`)
      send(`JOIN #${config.channel}`)
    },
    onMessage: (text) => {
      for (const line of text.split('\r\n')) if (line !== '') handleLine(line)
    },
    onDown: (reason) => {
      ready = false
      if (closed) return
      if (state !== 'failed' || !lastError?.startsWith('Twitch refused')) {
        state = 'failed'
        lastError = redactText(reason, token ? [token] : [])
      }
      logger.warn({ connector: config.name, reason: lastError }, 'Twitch chat connection down')
    },
  })

  // Not live by being followed: the session is live once chat says something there.
  const followOptions = {
    live: false,
    reachable: () => ready,
    ...(config.audience ? { audience: config.audience } : {}),
  }

  const unfollow = host.sessions.follow({
    ...followOptions,
    session,
    onEvent: (event: FollowedEvent) => {
      if (!config.post_replies || event.type !== 'llm_done' || event.interrupted === true) return
      const text = typeof event.text === 'string' ? event.text.replace(/\s+/g, ' ').trim() : ''
      if (text === '') return
      if (!ready) {
        // Sent later it would arrive out of its moment, with others in a burst.
        logger.warn({ connector: config.name }, 'reply dropped: the Twitch chat connection is down')
        return
      }
      const replyingTo = readReplyingTo(event)[0] ?? ''
      splitReplyText(text, maxChatMessageChars).forEach((part, index) => {
        const tag =
          index === 0 && /^[0-9a-f-]{8,64}$/i.test(replyingTo) ? `@reply-parent-msg-id=${replyingTo} ` : ''
        if (send(`${tag}PRIVMSG #${config.channel} :${part}`)) messagesOut += 1
      })
    },
  })

  return {
    status: () => ({
      name: config.name,
      kind: 'twitch',
      character: config.character,
      state,
      ...(lastError ? { error: lastError } : {}),
      sessions: [session],
      messages_in: messagesIn,
      messages_out: messagesOut,
    }),
    async close() {
      closed = true
      unfollow()
      socket.close()
    },
  }
}

function anonymousLogin(): string {
  return `justinfan${10_000 + Math.floor(Math.random() * 80_000)}`
}
