/**
 * One OneBot v11 connector: a QQ account's groups (and, when enabled, its private chats) as charpipe
 * sessions. Group messages go to the session's audience selector; the selector's turns come back as
 * `send_group_msg` replies to the message answered, with an `at` of each speaker answered; private
 * messages are 1:1 turns. The link is a forward WebSocket this connector dials (kept up with
 * backoff) or a reverse one the implementation opens to `listen`.
 *
 * The character speaks only where someone is: a group's session is live (its character may speak
 * first) once a message arrives there, never because the connector started; no idle turn runs while
 * the link is down; and a reply made while the link is down, or still waiting when it drops, is
 * dropped and logged rather than sent in a burst when the link is back. A call written to a link
 * that then dropped is not sent again, so nothing reaches the group twice.
 */

import { createHash, timingSafeEqual } from 'node:crypto'
import type { OnebotConnectorConfig } from '../../config/schema.js'
import type { CharpipeEvent } from '../../shared/events.js'
import { type Language, readChatPlatformTexts } from '../../shared/language/index.js'
import type { Logger } from '../../shared/logger.js'
import { createBoundedSet } from '../bounded-set.js'
import type { AudienceMessageInput, Connector, ConnectorHost } from '../connector-host.js'
import { createConnectorShell } from '../create-connector-shell.js'
import { type Backoff, keepSocketConnected } from '../keep-socket-connected.js'
import { splitReplyText } from '../split-reply-text.js'
import { convertOnebotMessage } from './convert-onebot-message.js'
import { createOnebotLink, type OnebotLink } from './create-onebot-link.js'
import type { OnebotSegment } from './onebot-types.js'
import { readOnebotId, readOnebotRecord } from './read-onebot-field.js'

export interface CreateOnebotConnectorOptions {
  config: OnebotConnectorConfig
  host: ConnectorHost
  /** The name group members address the character by (an `at` of the bot becomes `@name`). */
  characterName: string
  /** The character's language: the words for images and emoji in what it is sent. @default 'zh' */
  language?: Language
  logger: Logger
  backoff?: Backoff
  callTimeoutMs?: number
}

/** The socket a reverse connection came in on, as the server route sees it. */
export interface ReverseSocket {
  send(text: string): void
  close(code: number, reason: string): void
}

export interface OnebotConnector extends Connector {
  readonly listenPath: string
  /** Whether an access token is configured (without one, only local peers may connect in reverse). */
  readonly hasAccessToken: boolean
  /** Whether `presented` is the configured access token (compared in constant time). */
  acceptsToken(presented: string | undefined): boolean
  /** The implementation connected to `listen`: frames from it go to `receive`, its end to `detach`. */
  attachReverse(
    socket: ReverseSocket,
    selfId: string,
  ): { receive(text: string): void; detach(reason: string): void }
}

interface OutgoingMessage {
  action: 'send_group_msg' | 'send_private_msg'
  params: Record<string, unknown>
}

interface AnsweredMessage {
  userId: string
  messageId: string
}

const outboxLimit = 100

export function createOnebotConnector(options: CreateOnebotConnectorOptions): OnebotConnector {
  const { config, host } = options
  const groups = new Set(config.groups.map(String))
  const seen = createBoundedSet(5000)
  const ownMessages = createBoundedSet(2000)
  const answered = new Map<string, AnsweredMessage>()
  const outbox: OutgoingMessage[] = []
  const privateSessions = new Set<string>()
  let link: OnebotLink | undefined
  let selfId: string | undefined
  let reverseSocket: ReverseSocket | undefined

  const groupSession = (groupId: string) => `onebot:${config.name}:group:${groupId}`
  const privateSession = (userId: string) => `onebot:${config.name}:private:${userId}`

  const shell = createConnectorShell({
    kind: 'onebot',
    name: config.name,
    character: config.character,
    host,
    logger: options.logger,
    secrets: config.access_token ? [config.access_token] : [],
    linkName: 'the OneBot link',
    ...(config.audience ? { audience: config.audience } : {}),
    reachable: () => link !== undefined,
    listSessions: () => [...[...groups].map(groupSession), ...privateSessions],
  })

  const markDown = (reason: string) => {
    link?.close(`the OneBot link is down: ${reason}`)
    link = undefined
    if (shell.closed) return
    shell.markFailed(reason)
    shell.log('warn', { reason: shell.error }, 'OneBot link down')
    dropOutbox('the OneBot link went down before it was sent')
  }

  function dropOutbox(why: string) {
    for (const message of outbox.splice(0)) logDropped(message.action, why)
  }

  function logDropped(action: OutgoingMessage['action'], why: string) {
    shell.log('warn', { action }, `reply dropped: ${why}`)
  }

  const markUp = (send: (text: string) => void) => {
    link = createOnebotLink({
      send,
      onEvent: handleEvent,
      onBadFrame: (problem) => shell.refuse('bad_frame', problem),
      callTimeoutMs: options.callTimeoutMs,
    })
    shell.markReady()
    shell.log('info', {}, 'OneBot link ready')
    void flushOutbox()
  }

  function handleEvent(event: Record<string, unknown>) {
    const eventSelfId = readOnebotId(event.self_id)
    if (event.post_type === 'meta_event') {
      if (eventSelfId !== undefined) selfId = eventSelfId
      return
    }
    if (event.post_type !== 'message') return
    if (eventSelfId !== undefined) selfId = eventSelfId
    const userId = readOnebotId(event.user_id)
    // The bot's own messages (an implementation that reports them) are never fed back.
    if (userId !== undefined && userId === selfId) return
    const isGroup = event.message_type === 'group'
    const groupId = readOnebotId(event.group_id)
    if (isGroup ? groupId === undefined || !groups.has(groupId) : event.message_type !== 'private') return
    if (!isGroup && !config.private) return
    const converted = convertOnebotMessage({
      event,
      characterName: options.characterName,
      ...(options.language ? { language: options.language } : {}),
      isOwnMessage: (id) => ownMessages.has(id),
    })
    if (!converted.ok) return shell.refuse(converted.reason, converted.detail)
    const { message } = converted
    if (seen.has(message.id)) return
    seen.add(message.id)
    shell.countIn()
    if (!isGroup) return runPrivate(message)
    rememberAnswered(message.id, { userId: message.speaker.id, messageId: message.id })
    shell.offer({ session: groupSession(groupId as string), messages: [message] })
  }

  function rememberAnswered(id: string, message: AnsweredMessage) {
    answered.set(id, message)
    if (answered.size > 5000) answered.delete(answered.keys().next().value as string)
  }

  async function runPrivateTurn(message: AudienceMessageInput) {
    const userId = message.speaker.id
    const session = privateSession(userId)
    if (message.text === '' && !message.images) return
    privateSessions.add(session)
    try {
      await host.run(
        {
          session,
          character: config.character || undefined,
          text: message.text || readChatPlatformTexts(options.language ?? 'zh').image,
          speaker: { id: userId, name: message.speaker.name },
          ...(message.images ? { images: message.images } : {}),
        },
        {
          onEvent: (turnEvent: CharpipeEvent) => {
            if (turnEvent.type === 'llm_done' && !turnEvent.interrupted && turnEvent.text.trim() !== '')
              queueReply('send_private_msg', { user_id: Number(userId) }, turnEvent.text, undefined, [])
          },
        },
      )
    } catch (error) {
      shell.log('warn', { reason: shell.describe(error) }, 'private chat turn failed')
    }
  }

  // A 1:1 turn runs on its own; what it throws or rejects with is the guard's, like a frame's.
  const runPrivate = shell.guard(runPrivateTurn)

  for (const groupId of groups) {
    shell.follow({
      session: groupSession(groupId),
      onReply: ({ text, replyingTo }) => {
        const answeredMessages = replyingTo
          .map((id) => answered.get(id))
          .filter((found) => found !== undefined)
        queueReply('send_group_msg', { group_id: Number(groupId) }, text, answeredMessages[0]?.messageId, [
          ...new Set(answeredMessages.map((found) => found.userId)),
        ])
      },
    })
  }

  function queueReply(
    action: OutgoingMessage['action'],
    target: Record<string, unknown>,
    text: string,
    replyTo: string | undefined,
    mentions: string[],
  ) {
    if (!link) {
      // Sent later it would arrive out of its moment, with others in a burst.
      shell.dropReply({ action })
      return
    }
    const parts = splitReplyText(text, config.max_message_chars)
    parts.forEach((part, index) => {
      const message: OnebotSegment[] = []
      if (index === 0) {
        if (replyTo) message.push({ type: 'reply', data: { id: replyTo } })
        for (const userId of mentions.slice(0, 5)) message.push({ type: 'at', data: { qq: userId } })
      }
      message.push({ type: 'text', data: { text: index === 0 && mentions.length > 0 ? ` ${part}` : part } })
      outbox.push({ action, params: { ...target, message } })
    })
    while (outbox.length > outboxLimit) outbox.shift()
    void flushOutbox()
  }

  let flushing = false
  async function flushOutbox() {
    if (flushing) return
    flushing = true
    try {
      while (link && outbox.length > 0) {
        const next = outbox.shift() as OutgoingMessage
        try {
          // Written once: a call whose link drops before the response is not sent again.
          const response = await link.call(next.action, next.params)
          shell.countOut()
          const sentId = readOnebotId(readOnebotRecord(response.data).message_id)
          if (sentId !== undefined) ownMessages.add(sentId)
        } catch (error) {
          shell.log('warn', { action: next.action, reason: shell.describe(error) }, 'reply not sent')
        }
      }
    } finally {
      flushing = false
    }
  }

  const forward =
    config.url !== ''
      ? keepSocketConnected({
          url: config.url,
          headers: config.access_token ? { Authorization: `Bearer ${config.access_token}` } : undefined,
          backoff: options.backoff,
          onOpen: () => markUp((text) => forward?.send(text)),
          onMessage: shell.guard((text: string) => link?.receive(text)),
          onDown: markDown,
        })
      : undefined
  shell.onClose(() => {
    forward?.close()
    reverseSocket?.close(1001, 'the connector stopped')
    link?.close('the connector stopped')
  })

  return {
    listenPath: config.listen,
    hasAccessToken: config.access_token !== '',
    acceptsToken: (presented) => presented !== undefined && sameSecret(presented, config.access_token),
    attachReverse(socket, connectedSelfId) {
      // One implementation at a time: a second connection replaces the first.
      reverseSocket?.close(1000, 'replaced by a new connection')
      reverseSocket = socket
      selfId = connectedSelfId
      markUp((text) => socket.send(text))
      const ownLink = link
      return {
        receive: shell.guard((text: string) => ownLink?.receive(text)),
        detach(reason) {
          if (reverseSocket !== socket) {
            ownLink?.close('replaced')
            return
          }
          reverseSocket = undefined
          markDown(reason)
        },
      }
    },
    status: () => shell.status(),
    close: () => shell.close(),
  }
}

function sameSecret(presented: string, expected: string): boolean {
  const digest = (text: string) => createHash('sha256').update(text).digest()
  return timingSafeEqual(digest(presented), digest(expected))
}
