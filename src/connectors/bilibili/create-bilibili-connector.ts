/**
 * One Bilibili live room's danmaku as a charpipe session (`bilibili:<name>:<room_id>`). Before each
 * connection the room is looked up (its real id, the streamer, whether it is live) and a fresh token
 * asked for; the connection authenticates (operation 7), beats every 30 s, and hands danmaku, gifts,
 * guards and super chats to the session's audience selector, weighed by the sender's fan medal and
 * user level (weigh-bilibili-fan.ts). Entries and follows are counted only; follows, gifts and
 * guards may be thanked in one line per window instead (create-thank-you-window.ts).
 * With `post_replies` and a cookie, the selector's replies go back as danmaku through the HTTP API,
 * cut to `max_message_chars`, one at a time, each sent once.
 *
 * Hand-written rather than `bilibili-live-ws`: that library looks up its server and token on
 * Bilibili's own host only and keeps one token for its reconnects; the packet format it would carry
 * is small (danmaku-packet.ts, with property tests).
 */
import { createSystemClock } from '../../audience/create-system-clock.js'
import type { AudienceStanding } from '../../audience/types.js'
import type { BilibiliConnectorConfig } from '../../config/schema.js'
import type { Logger } from '../../shared/logger.js'
import { redactText } from '../../shared/redact.js'
import { createBoundedSet } from '../bounded-set.js'
import type {
  AudienceMessageInput,
  Connector,
  ConnectorClock,
  ConnectorHost,
  ConnectorStatus,
  FollowedEvent,
} from '../connector-host.js'
import { type Backoff, keepSocketConnected } from '../keep-socket-connected.js'
import { splitReplyText } from '../split-reply-text.js'
import { type BilibiliCommandResult, convertBilibiliCommand } from './convert-bilibili-command.js'
import {
  type BilibiliRoom,
  bilibiliDanmakuUrl,
  createBilibiliApi,
  parseBilibiliCookie,
} from './create-bilibili-api.js'
import { createThankYouWindow, thankYouEventOf } from './create-thank-you-window.js'
import {
  DanmakuOperation,
  decodeDanmakuFrame,
  encodeAuthPacket,
  encodeHeartbeatPacket,
} from './danmaku-packet.js'
import { weighBilibiliFan } from './weigh-bilibili-fan.js'

export const danmakuHeartbeatMs = 30_000
/** Heartbeats without a word from the server before the connection is taken for dead. */
const silentBeatsLimit = 3
/** Replies waiting to be sent at most; past it the oldest not yet started is given up. */
const outboxLimit = 20
/** Bilibili's codes for "too fast": the danmaku was not sent, so waiting and sending it again is safe. */
const tooFastCodes = new Set([10030, 10031])

export interface CreateBilibiliConnectorOptions {
  config: BilibiliConnectorConfig
  host: ConnectorHost
  characterName: string
  logger: Logger
  backoff?: Backoff
  fetch?: typeof fetch
  /** The clock the sends are paced by. @default the system clock */
  clock?: ConnectorClock
  /** Time between two danmaku sent (Bilibili refuses faster senders). @default 1500 */
  sendIntervalMs?: number
  /** How long a reply may wait for its first part to be sent. @default 60_000 */
  outboxMaxAgeMs?: number
}

export function createBilibiliConnector(options: CreateBilibiliConnectorOptions): Connector {
  const { config, host, logger } = options
  const clock = options.clock ?? createSystemClock()
  const session = `bilibili:${config.name}:${config.room_id}`
  const character = config.character || undefined
  const cookie = parseBilibiliCookie(config.cookie)
  const secrets = [cookie.header, cookie.csrf].filter((value) => value !== '')
  const api = createBilibiliApi({
    apiUrl: config.api_url,
    cookie,
    fetch: options.fetch,
    now: () => clock.now(),
  })
  const seen = createBoundedSet(5000)
  const counted: Record<string, number> = {
    entered: 0,
    followed: 0,
    silver_gift: 0,
    below_user_level: 0,
    thank_you: 0,
  }
  const thankFor = new Set(config.thank_you.every_s > 0 ? config.thank_you.for : [])
  const thankYou = createThankYouWindow({
    everyMs: config.thank_you.every_s * 1000,
    template: config.thank_you.template,
    clock,
    onLine(line) {
      counted.thank_you = (counted.thank_you ?? 0) + 1
      // The streamer's own request to the character, so it comes first (owner) like a gift would.
      offer({
        id: `thanks:${clock.now()}:${counted.thank_you}`,
        speaker: { id: 'room', name: '直播间', role: 'owner' },
        text: line.text,
        ...(line.value > 0 ? { gift: { name: '礼物', value: line.value } } : {}),
      })
    },
  })
  // Whole replies, so one is sent entirely or not at all: a room never sees half a sentence.
  const outbox: { parts: string[]; queuedAt: number; started: boolean; retried: boolean }[] = []
  let room: BilibiliRoom | undefined
  let token = ''
  let state: ConnectorStatus['state'] = 'connecting'
  let lastError: string | undefined
  let roomNotice: string | undefined
  let replyNotice: string | undefined
  let messagesIn = 0
  let messagesOut = 0
  let messagesRefused = 0
  let silentBeats = 0
  let heartbeat: NodeJS.Timeout | undefined
  let sending = false
  let sendTimer: unknown
  let closed = false

  const scrub = (text: string) => redactText(text, secrets)

  /** Asked before every dial: the room (it may have gone live or offline) and a fresh token. */
  const prepareConnection = async (): Promise<string> => {
    room = await api.resolveRoom(config.room_id)
    roomNotice = room.live ? undefined : 'the room is offline (not streaming now)'
    try {
      const server = await api.getDanmakuServer(room.roomId)
      token = server.token
      return config.url || server.url
    } catch (error) {
      // Without a token the server still lets a guest read (names masked); with a cookie, say why.
      token = ''
      if (cookie.uid !== 0)
        logger.warn({ connector: config.name, reason: scrub((error as Error).message) }, 'no danmaku token')
      return config.url || bilibiliDanmakuUrl
    }
  }

  const stopHeartbeat = () => {
    if (heartbeat) clearInterval(heartbeat)
    heartbeat = undefined
  }

  const socket = keepSocketConnected({
    url: prepareConnection,
    backoff: options.backoff,
    resetBackoffOn: 'manual',
    onOpen: () => {
      silentBeats = 0
      socket.send(
        encodeAuthPacket({
          roomId: room?.roomId ?? config.room_id,
          uid: token !== '' ? cookie.uid : 0,
          token,
          buvid: cookie.buvid,
        }),
      )
      stopHeartbeat()
      heartbeat = setInterval(beat, danmakuHeartbeatMs)
    },
    onMessage: () => {},
    onBinaryMessage: (frame) => {
      silentBeats = 0
      let packets: ReturnType<typeof decodeDanmakuFrame>
      try {
        packets = decodeDanmakuFrame(frame)
      } catch (error) {
        logger.warn({ connector: config.name, err: error as Error }, 'a danmaku frame could not be read')
        return
      }
      // One command that cannot be read costs only itself, not the rest of its frame.
      for (const packet of packets) {
        try {
          handlePacket(packet.operation, packet.body)
        } catch (error) {
          logger.warn({ connector: config.name, err: error as Error }, 'a danmaku command could not be read')
        }
      }
    },
    onDown: (reason) => {
      stopHeartbeat()
      if (closed) return
      if (state !== 'failed' || !lastError?.startsWith('the danmaku server refused')) {
        state = 'failed'
        lastError = scrub(reason)
      }
      logger.warn({ connector: config.name, reason: lastError }, 'Bilibili danmaku connection down')
    },
  })

  function beat() {
    silentBeats += 1
    if (silentBeats >= silentBeatsLimit) {
      lastError = 'the danmaku server went silent (no answer to 3 heartbeats)'
      socket.drop()
      return
    }
    socket.send(encodeHeartbeatPacket())
  }

  function handlePacket(operation: number, body: Buffer) {
    if (operation === DanmakuOperation.authReply) return handleAuthReply(body)
    if (operation !== DanmakuOperation.command) return
    let command: unknown
    try {
      command = JSON.parse(body.toString('utf8'))
    } catch {
      return
    }
    const result = convertBilibiliCommand({
      command,
      roomId: room?.roomId ?? config.room_id,
      ownerUid: room?.ownerUid ?? 0,
      botUid: cookie.uid,
      characterName: options.characterName,
    })
    if (!result) return
    if (result.kind === 'room') {
      roomNotice = result.live ? undefined : result.notice
      return
    }
    if (result.kind === 'counted') counted[result.what] = (counted[result.what] ?? 0) + 1
    const thanked = thankYouEventOf(result)
    if (thanked && thankFor.has(thanked.kind)) {
      // A gift or guard thanked in the window's line is not answered on its own as well.
      if (result.kind === 'message' && !remember(result.message.id)) return
      thankYou.add(thanked)
      return
    }
    if (result.kind === 'message') offer(result.message, () => weighFan(result))
  }

  function weighFan(result: Extract<BilibiliCommandResult, { kind: 'message' }>) {
    const standing = weighBilibiliFan(result, config)
    if (standing?.answer === false) counted.below_user_level = (counted.below_user_level ?? 0) + 1
    return standing
  }

  /** Remembers a message id; false when it was already seen (a frame sent again). */
  function remember(id: string): boolean {
    if (seen.has(id)) return false
    seen.add(id)
    return true
  }

  function handleAuthReply(body: Buffer) {
    let code = -1
    try {
      code = Number((JSON.parse(body.toString('utf8')) as { code?: unknown }).code)
    } catch {}
    if (code === 0) {
      state = 'ready'
      lastError = undefined
      socket.resetBackoff()
      socket.send(encodeHeartbeatPacket())
      logger.info({ connector: config.name, room: room?.roomId }, 'Bilibili danmaku ready')
      return
    }
    state = 'failed'
    lastError = `the danmaku server refused the login (code ${code}); trying again with a fresh token`
    socket.drop()
  }

  function offer(message: AudienceMessageInput, weighFan?: () => AudienceStanding | undefined) {
    if (message.text === '' || !remember(message.id)) return
    messagesIn += 1
    const standing = weighFan?.()
    const refuse = (error: Error) => {
      messagesRefused += 1
      logger.warn({ connector: config.name, err: error }, 'audience message refused')
    }
    // A refusal (a full queue, a turn limit) drops this message; it never throws out of the socket's listener.
    try {
      const weigh = standing ? () => standing : undefined
      void Promise.resolve(
        host.audience({ session, character, messages: [message], ...(weigh ? { weigh } : {}) }),
      ).catch(refuse)
    } catch (error) {
      refuse(error as Error)
    }
  }

  // Not live by being followed: the room's session is live once a viewer says something there, and
  // no idle turn runs while the danmaku link is down.
  const followOptions = {
    live: false,
    reachable: () => state === 'ready',
    ...(config.audience ? { audience: config.audience } : {}),
  }

  const unfollow = host.subscribe(
    session,
    (event: FollowedEvent) => {
      if (!config.post_replies || cookie.csrf === '') return
      if (event.type !== 'llm_done' || event.interrupted === true) return
      const text = typeof event.text === 'string' ? event.text.replace(/\s+/g, ' ').trim() : ''
      if (text === '') return
      if (state !== 'ready') {
        // Sent later it would arrive out of its moment, with others in a burst.
        logger.warn({ connector: config.name }, 'reply dropped: the Bilibili danmaku link is down')
        return
      }
      outbox.push({
        parts: splitReplyText(text, config.max_message_chars),
        queuedAt: clock.now(),
        started: false,
        retried: false,
      })
      if (outbox.length > outboxLimit) {
        const oldest = outbox.findIndex((reply) => !reply.started)
        if (oldest >= 0) outbox.splice(oldest, 1)
      }
      pump()
    },
    followOptions,
  )

  /**
   * Sends the next part of the oldest reply, then waits the send interval before the one after. A
   * reply that waited past `outboxMaxAgeMs` before its first part went out is given up whole.
   */
  function pump() {
    if (sending || closed) return
    const reply = outbox[0]
    if (!reply) return
    if (!reply.started && clock.now() - reply.queuedAt > (options.outboxMaxAgeMs ?? 60_000)) {
      outbox.shift()
      return pump()
    }
    const text = reply.parts.shift() as string
    reply.started = true
    if (reply.parts.length === 0) outbox.shift()
    sending = true
    api
      .sendDanmaku(room?.roomId ?? config.room_id, text)
      .then((result) => {
        if (result.ok) {
          messagesOut += 1
          replyNotice = undefined
        } else if (tooFastCodes.has(result.code) && !reply.retried) {
          // Not sent: the same part goes first again, once.
          reply.retried = true
          reply.parts.unshift(text)
          if (outbox[0] !== reply) outbox.unshift(reply)
        } else replyNotice = `Bilibili refused a reply (${result.message})`
      })
      // A network failure may have sent it: never sent again, so a reply is posted at most once.
      .catch((error: Error) => {
        replyNotice = `a reply could not be sent: ${scrub(error.message)}`
      })
      .finally(() => {
        if (replyNotice) logger.warn({ connector: config.name, reason: replyNotice }, 'danmaku not sent')
        sendTimer = clock.setTimer(() => {
          sending = false
          sendTimer = undefined
          pump()
        }, options.sendIntervalMs ?? 1500)
      })
  }

  return {
    status: () => {
      const notice = [roomNotice, replyNotice].filter(Boolean).join('; ')
      return {
        name: config.name,
        kind: 'bilibili',
        character: config.character,
        state,
        ...(lastError ? { error: lastError } : {}),
        ...(notice !== '' ? { notice } : {}),
        sessions: [session],
        messages_in: messagesIn,
        messages_out: messagesOut,
        ...(messagesRefused > 0 ? { messages_refused: messagesRefused } : {}),
        counted: { ...counted },
      }
    },
    async close() {
      closed = true
      thankYou.close()
      unfollow()
      stopHeartbeat()
      if (sendTimer !== undefined) clock.clearTimer(sendTimer)
      socket.close()
    },
  }
}
