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
import { createBoundedSet } from '../bounded-set.js'
import type { AudienceMessageInput, Connector, ConnectorClock, ConnectorHost } from '../connector-host.js'
import { createConnectorShell } from '../create-connector-shell.js'
import { type Backoff, keepSocketConnected } from '../keep-socket-connected.js'
import { splitReplyText } from '../split-reply-text.js'
import { type BilibiliCommandResult, convertBilibiliCommand } from './convert-bilibili-command.js'
import {
  type BilibiliRoom,
  bilibiliDanmakuUrl,
  createBilibiliApi,
  parseBilibiliCookie,
} from './create-bilibili-api.js'
import { createDanmakuFrameReader } from './create-danmaku-frame-reader.js'
import { createThankYouWindow, thankYouEventOf } from './create-thank-you-window.js'
import { DanmakuOperation, encodeAuthPacket, encodeHeartbeatPacket } from './danmaku-packet.js'
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
  const { config, host } = options
  const clock = options.clock ?? createSystemClock()
  const session = `bilibili:${config.name}:${config.room_id}`
  const cookie = parseBilibiliCookie(config.cookie)
  const api = createBilibiliApi({
    apiUrl: config.api_url,
    cookie,
    fetch: options.fetch,
    now: () => clock.now(),
  })
  const seen = createBoundedSet(5000)
  const frames = createDanmakuFrameReader({ now: () => clock.now() })
  // Whole replies, so one is sent entirely or not at all: a room never sees half a sentence.
  const outbox: { parts: string[]; queuedAt: number; started: boolean; retried: boolean }[] = []
  let room: BilibiliRoom | undefined
  let token = ''
  let roomNotice: string | undefined
  let replyNotice: string | undefined
  let silentBeats = 0
  let heartbeat: NodeJS.Timeout | undefined
  let sending = false
  let sendTimer: unknown

  const shell = createConnectorShell({
    kind: 'bilibili',
    name: config.name,
    character: config.character,
    host,
    logger: options.logger,
    secrets: cookie.secrets,
    linkName: 'the Bilibili danmaku link',
    ...(config.audience ? { audience: config.audience } : {}),
    reachable: () => shell.state === 'ready',
    listSessions: () => [session],
    counted: ['entered', 'followed', 'silver_gift', 'below_user_level', 'thank_you'],
    readNotice: () => [roomNotice, replyNotice].filter(Boolean).join('; '),
    now: () => clock.now(),
  })

  const thankFor = new Set(config.thank_you.every_s > 0 ? config.thank_you.for : [])
  let thankYouLines = 0
  const thankYou = createThankYouWindow({
    everyMs: config.thank_you.every_s * 1000,
    template: config.thank_you.template,
    clock,
    onLine(line) {
      shell.count('thank_you')
      thankYouLines += 1
      // The streamer's own request to the character, so it comes first (owner) like a gift would.
      offer({
        id: `thanks:${clock.now()}:${thankYouLines}`,
        speaker: { id: 'room', name: '直播间', role: 'owner' },
        text: line.text,
        ...(line.value > 0 ? { gift: { name: '礼物', value: line.value } } : {}),
      })
    },
  })

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
      if (cookie.uid !== 0) shell.log('warn', { reason: shell.describe(error) }, 'no danmaku token')
      return config.url || bilibiliDanmakuUrl
    }
  }

  const stopHeartbeat = () => {
    if (heartbeat) clearInterval(heartbeat)
    heartbeat = undefined
  }

  /** One frame: refused whole past its bounds, else each packet on its own. */
  function handleFrame(frame: Buffer) {
    silentBeats = 0
    const read = frames.read(frame)
    if (!read.ok) return shell.refuse(read.reason, read.detail)
    // One command that cannot be read costs only itself, not the rest of its frame.
    for (const packet of read.packets) readPacket(packet.operation, packet.body)
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
    onBinaryMessage: shell.guard(handleFrame),
    onDown: (reason) => {
      stopHeartbeat()
      if (shell.closed) return
      if (shell.state !== 'failed' || !shell.error?.startsWith('the danmaku server refused'))
        shell.markFailed(reason)
      shell.log('warn', { reason: shell.error }, 'Bilibili danmaku connection down')
    },
  })

  function beat() {
    silentBeats += 1
    if (silentBeats >= silentBeatsLimit) {
      shell.setError('the danmaku server went silent (no answer to 3 heartbeats)')
      socket.drop()
      return
    }
    socket.send(encodeHeartbeatPacket())
  }

  const readPacket = shell.guard(handlePacket)

  function handlePacket(operation: number, body: Buffer) {
    if (operation === DanmakuOperation.authReply) return handleAuthReply(body)
    if (operation !== DanmakuOperation.command) return
    let command: unknown
    try {
      command = JSON.parse(body.toString('utf8'))
    } catch {
      return shell.refuse('not_json', 'a danmaku command that is not JSON')
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
    if (result.kind === 'counted') shell.count(result.what)
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
    if (standing?.answer === false) shell.count('below_user_level')
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
      shell.markReady()
      socket.resetBackoff()
      socket.send(encodeHeartbeatPacket())
      shell.log('info', { room: room?.roomId }, 'Bilibili danmaku ready')
      return
    }
    shell.markFailed(`the danmaku server refused the login (code ${code}); trying again with a fresh token`)
    socket.drop()
  }

  function offer(message: AudienceMessageInput, weighFan?: () => AudienceStanding | undefined) {
    if (message.text === '' || !remember(message.id)) return
    shell.countIn()
    const standing = weighFan?.()
    shell.offer({ session, messages: [message], ...(standing ? { weigh: () => standing } : {}) })
  }

  shell.follow({
    session,
    postsReplies: config.post_replies && cookie.csrf !== '',
    onReply: ({ text }) => {
      outbox.push({
        parts: splitReplyText(text.replace(/\s+/g, ' '), config.max_message_chars),
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
  })

  /**
   * Sends the next part of the oldest reply, then waits the send interval before the one after. A
   * reply that waited past `outboxMaxAgeMs` before its first part went out is given up whole.
   */
  function pump() {
    if (sending || shell.closed) return
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
          shell.countOut()
          replyNotice = undefined
        } else if (tooFastCodes.has(result.code) && !reply.retried) {
          // Not sent: the same part goes first again, once.
          reply.retried = true
          reply.parts.unshift(text)
          if (outbox[0] !== reply) outbox.unshift(reply)
        } else replyNotice = shell.mask(`Bilibili refused a reply (${result.message})`)
      })
      // A network failure may have sent it: never sent again, so a reply is posted at most once.
      .catch((error: unknown) => {
        replyNotice = `a reply could not be sent: ${shell.describe(error)}`
      })
      .finally(() => {
        if (replyNotice) shell.log('warn', { reason: replyNotice }, 'danmaku not sent')
        sendTimer = clock.setTimer(() => {
          sending = false
          sendTimer = undefined
          pump()
        }, options.sendIntervalMs ?? 1500)
      })
  }

  shell.onClose(() => {
    thankYou.close()
    stopHeartbeat()
    if (sendTimer !== undefined) clock.clearTimer(sendTimer)
    socket.close()
  })

  return { status: () => shell.status(), close: () => shell.close() }
}
