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
import { createRateLimitedLog } from '../../admission/index.js'
import type { OnebotConnectorConfig } from '../../config/schema.js'
import type { CharpipeEvent } from '../../shared/events.js'
import { type Language, readChatPlatformTexts } from '../../shared/language/index.js'
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
import { convertOnebotMessage } from './convert-onebot-message.js'
import { createOnebotLink, type OnebotLink } from './create-onebot-link.js'
import type { OnebotMessageEvent, OnebotSegment } from './onebot-types.js'

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
  const { config, host, logger } = options
  const character = config.character || undefined
  const groups = new Set(config.groups)
  const seen = createBoundedSet(5000)
  const ownMessages = createBoundedSet(2000)
  const answered = new Map<string, AnsweredMessage>()
  const outbox: OutgoingMessage[] = []
  const privateSessions = new Set<string>()
  const secrets = config.access_token ? [config.access_token] : []
  let link: OnebotLink | undefined
  let selfId: string | undefined
  let state: ConnectorStatus['state'] = 'connecting'
  let lastError: string | undefined
  let messagesIn = 0
  let messagesOut = 0
  let closed = false
  let reverseSocket: ReverseSocket | undefined
  // A flood of malformed frames is one warning per interval, not one per frame.
  const badFrames = createRateLimitedLog({ logger })

  const groupSession = (groupId: string) => `onebot:${config.name}:group:${groupId}`
  const privateSession = (userId: string) => `onebot:${config.name}:private:${userId}`

  const markDown = (reason: string) => {
    link?.close(`the OneBot link is down: ${reason}`)
    link = undefined
    if (closed) return
    state = 'failed'
    lastError = redactText(reason, secrets)
    logger.warn({ connector: config.name, reason: lastError }, 'OneBot link down')
    dropOutbox('the OneBot link went down before it was sent')
  }

  function dropOutbox(why: string) {
    for (const message of outbox.splice(0)) logDropped(message.action, why)
  }

  function logDropped(action: OutgoingMessage['action'], why: string) {
    logger.warn({ connector: config.name, action }, `reply dropped: ${why}`)
  }

  const markUp = (send: (text: string) => void) => {
    link = createOnebotLink({
      send,
      onEvent: handleEvent,
      onBadFrame: (problem) =>
        badFrames.warn('bad frame', { connector: config.name, problem }, 'OneBot sent a bad frame'),
      callTimeoutMs: options.callTimeoutMs,
    })
    state = 'ready'
    lastError = undefined
    logger.info({ connector: config.name }, 'OneBot link ready')
    flushOutbox()
  }

  function handleEvent(event: Record<string, unknown>) {
    if (event.post_type === 'meta_event') {
      if (event.self_id !== undefined) selfId = String(event.self_id)
      return
    }
    if (event.post_type !== 'message') return
    const message = event as unknown as OnebotMessageEvent
    if (message.self_id !== undefined) selfId = String(message.self_id)
    if (String(message.user_id) === selfId) return
    const messageId = String(message.message_id)
    if (seen.has(messageId)) return
    seen.add(messageId)
    if (message.message_type === 'group' && groups.has(String(message.group_id))) {
      messagesIn += 1
      const converted = convertOnebotMessage({
        event: message,
        characterName: options.characterName,
        ...(options.language ? { language: options.language } : {}),
        isOwnMessage: (id) => ownMessages.has(id),
      })
      rememberAnswered(converted.message.id, { userId: String(message.user_id), messageId })
      void Promise.resolve(
        host.audience.send({
          session: groupSession(String(message.group_id)),
          character,
          messages: [converted.message],
        }),
      ).catch((error: Error) =>
        logger.warn({ connector: config.name, err: error }, 'audience message refused'),
      )
      return
    }
    if (message.message_type === 'private' && config.private) {
      messagesIn += 1
      void runPrivateTurn(message)
    }
  }

  function rememberAnswered(id: string, message: AnsweredMessage) {
    answered.set(id, message)
    if (answered.size > 5000) answered.delete(answered.keys().next().value as string)
  }

  async function runPrivateTurn(message: OnebotMessageEvent) {
    const userId = String(message.user_id)
    const session = privateSession(userId)
    privateSessions.add(session)
    const converted = convertOnebotMessage({
      event: message,
      characterName: options.characterName,
      ...(options.language ? { language: options.language } : {}),
      isOwnMessage: (id) => ownMessages.has(id),
    })
    if (converted.message.text === '' && !converted.message.images) return
    try {
      await host.run(
        {
          session,
          character,
          text: converted.message.text || readChatPlatformTexts(options.language ?? 'zh').image,
          speaker: { id: userId, name: converted.message.speaker.name },
          ...(converted.message.images ? { images: converted.message.images } : {}),
        },
        {
          onEvent: (turnEvent: CharpipeEvent) => {
            if (turnEvent.type === 'llm_done' && !turnEvent.interrupted && turnEvent.text.trim() !== '')
              queueReply('send_private_msg', { user_id: Number(userId) }, turnEvent.text, undefined, [])
          },
        },
      )
    } catch (error) {
      logger.warn({ connector: config.name, err: error }, 'private chat turn failed')
    }
  }

  // Not live by being followed: the group's session is live once a message arrives there.
  const followOptions = {
    live: false,
    reachable: () => link !== undefined,
    ...(config.audience ? { audience: config.audience } : {}),
  }

  function followGroup(groupId: string) {
    return host.sessions.follow({
      ...followOptions,
      session: groupSession(groupId),
      onEvent: (event: FollowedEvent) => {
        if (event.type !== 'llm_done' || event.interrupted === true) return
        const text = typeof event.text === 'string' ? event.text.trim() : ''
        if (text === '') return
        const replyingTo = readReplyingTo(event)
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
      logDropped(action, 'the OneBot link is down')
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
    flushOutbox()
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
          messagesOut += 1
          const sentId = (response.data as { message_id?: unknown } | null)?.message_id
          if (sentId !== undefined) ownMessages.add(String(sentId))
        } catch (error) {
          logger.warn({ connector: config.name, action: next.action, err: error }, 'reply not sent')
        }
      }
    } finally {
      flushing = false
    }
  }

  const unfollow = [...groups].map(followGroup)
  const forward =
    config.url !== ''
      ? keepSocketConnected({
          url: config.url,
          headers: config.access_token ? { Authorization: `Bearer ${config.access_token}` } : undefined,
          backoff: options.backoff,
          onOpen: () => markUp((text) => forward?.send(text)),
          onMessage: (text) => link?.receive(text),
          onDown: markDown,
        })
      : undefined

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
        receive: (text) => ownLink?.receive(text),
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
    status: () => ({
      name: config.name,
      kind: 'onebot',
      character: config.character,
      state,
      ...(lastError ? { error: lastError } : {}),
      sessions: [...[...groups].map(groupSession), ...privateSessions],
      messages_in: messagesIn,
      messages_out: messagesOut,
    }),
    async close() {
      closed = true
      for (const stop of unfollow) stop()
      forward?.close()
      reverseSocket?.close(1001, 'the connector stopped')
      link?.close('the connector stopped')
    },
  }
}

function sameSecret(presented: string, expected: string): boolean {
  const digest = (text: string) => createHash('sha256').update(text).digest()
  return timingSafeEqual(digest(presented), digest(expected))
}
