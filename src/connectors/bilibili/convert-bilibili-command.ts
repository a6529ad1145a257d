/**
 * A danmaku server command (operation 5, JSON with `cmd`) as what the connector does with it:
 * `DANMU_MSG` a viewer's message (the streamer → owner, a room admin → moderator, a guard → member),
 * `SEND_GIFT` (gold coins) and `GUARD_BUY` a message with a gift worth its price in CNY,
 * `SUPER_CHAT_MESSAGE` its text with its price as the gift, `INTERACT_WORD` and silver gifts only
 * counted (and `INTERACT_WORD_V2`, the same in a protobuf `pb` field), `LIVE` / `PREPARING` / `ROOM_LOCK` / `CUT_OFF` the room's state. Field layouts as
 * Bilibili's web client receives them (`info` arrays for danmaku, `data` objects for the rest).
 * Emoticons and stickers become readable text; names stay as Bilibili shows them (masked, `张***`,
 * when reading without a cookie).
 */
import type { AudienceMessageInput, AudienceRole } from '../connector-host.js'
import { decodeInteractWord } from './decode-interact-word.js'

/** What Bilibili says of a sender beyond their role: for the connector's medal and level weights. */
export interface BilibiliFan {
  /** The level of the fan medal of this room the sender wears; 0: none, or another room's. */
  medalLevel: number
  /** The account's user level (UL), when the command carries it and the sender is known by uid. */
  userLevel?: number
}

export type BilibiliCommandResult =
  | {
      kind: 'message'
      /** The command it came from. */
      from: 'danmaku' | 'gift' | 'guard' | 'super_chat'
      message: AudienceMessageInput
      fan: BilibiliFan
      /** How many gifts, or months of a guard. */
      count?: number
    }
  | { kind: 'counted'; what: 'entered' | 'followed' | 'silver_gift'; viewer?: { uid: number; name: string } }
  | { kind: 'room'; live: boolean; notice?: string }

export interface ConvertBilibiliCommandOptions {
  command: unknown
  roomId: number
  /** The streamer's uid (their danmaku are the owner's). */
  ownerUid: number
  /** The logged-in account's uid (its own danmaku are skipped; a reply to it is a mention); 0: anonymous. */
  botUid: number
  characterName: string
}

/** 1000 gold coins are 1 CNY. */
const goldPerYuan = 1000

export function convertBilibiliCommand(
  options: ConvertBilibiliCommandOptions,
): BilibiliCommandResult | undefined {
  const command = asRecord(options.command)
  // Bilibili appends a suffix to some names (`DANMU_MSG:4:0:2:2:2:0`).
  const name = String(command.cmd ?? '').split(':')[0]
  switch (name) {
    case 'DANMU_MSG':
      return convertDanmaku(command.info, options)
    case 'SEND_GIFT':
      return convertGift(asRecord(command.data), options)
    case 'GUARD_BUY':
      return convertGuard(asRecord(command.data), options)
    case 'SUPER_CHAT_MESSAGE':
      return convertSuperChat(asRecord(command.data), options)
    case 'INTERACT_WORD': {
      const data = asRecord(command.data)
      return convertInteraction(Number(data.msg_type), Number(data.uid ?? 0), String(data.uname ?? ''))
    }
    case 'INTERACT_WORD_V2': {
      const pb = asRecord(command.data).pb
      if (typeof pb !== 'string') return undefined
      const word = decodeInteractWord(pb)
      return convertInteraction(word.msgType, word.uid, word.name)
    }
    case 'LIVE':
      return { kind: 'room', live: true }
    case 'PREPARING':
      return { kind: 'room', live: false, notice: 'the room is offline (the stream ended)' }
    case 'ROOM_LOCK':
      return { kind: 'room', live: false, notice: 'Bilibili locked the room' }
    case 'CUT_OFF':
      return {
        kind: 'room',
        live: false,
        notice: `Bilibili cut the stream off${command.msg ? `: ${String(command.msg)}` : ''}`,
      }
    default:
      return undefined
  }
}

/** Entered (1), followed (2; 4 a special follow, 5 a mutual one): counted, the viewer kept for a thank-you. */
function convertInteraction(type: number, uid: number, name: string): BilibiliCommandResult | undefined {
  const viewer = { uid, name }
  if (type === 1) return { kind: 'counted', what: 'entered', viewer }
  if (type === 2 || type === 4 || type === 5) return { kind: 'counted', what: 'followed', viewer }
  return undefined
}

function convertDanmaku(
  info: unknown,
  options: ConvertBilibiliCommandOptions,
): BilibiliCommandResult | undefined {
  if (!Array.isArray(info)) return undefined
  const meta = Array.isArray(info[0]) ? info[0] : []
  const user = Array.isArray(info[2]) ? info[2] : []
  const uid = Number(user[0] ?? 0)
  if (options.botUid !== 0 && uid === options.botUid) return undefined
  const extra = parseExtra(asRecord(meta[15]).extra)
  let text = readableDanmakuText(String(info[1] ?? ''), Number(meta[12] ?? 0), extra)
  if (options.botUid !== 0 && Number(extra.reply_mid ?? 0) === options.botUid)
    text = `@${options.characterName} ${text}`
  const speakerId = uid > 0 ? String(uid) : `hash:${String(meta[7] ?? '')}`
  const role: AudienceRole =
    uid > 0 && uid === options.ownerUid
      ? 'owner'
      : Number(user[2]) === 1
        ? 'moderator'
        : Number(info[7] ?? 0) > 0
          ? 'member'
          : 'viewer'
  const id =
    typeof extra.id_str === 'string' && extra.id_str !== ''
      ? `dm:${extra.id_str}`
      : `dm:${speakerId}:${String(meta[4] ?? '')}:${String(meta[5] ?? '')}`
  const medal = Array.isArray(info[3]) ? info[3] : []
  const level = Array.isArray(info[4]) ? Number(info[4][0]) : Number.NaN
  return {
    kind: 'message',
    from: 'danmaku',
    message: { id, speaker: { id: speakerId, name: String(user[1] ?? ''), role }, text: text.trim() },
    fan: {
      // [level, name, streamer's name, room id, …, the streamer's uid at 12]
      medalLevel: roomMedalLevel(
        Number(medal[0] ?? 0),
        Number(medal[3] ?? 0),
        Number(medal[12] ?? 0),
        options,
      ),
      // Read anonymously the sender is unknown, and so is their level.
      ...(uid > 0 && Number.isFinite(level) ? { userLevel: level } : {}),
    },
  }
}

/** A medal counts when it is this room's (by room id, or by the streamer's uid when it names one). */
function roomMedalLevel(
  level: number,
  medalRoomId: number,
  medalOwnerUid: number,
  options: ConvertBilibiliCommandOptions,
): number {
  if (!(level > 0)) return 0
  const ours =
    (medalRoomId > 0 && medalRoomId === options.roomId) ||
    (medalOwnerUid > 0 && medalOwnerUid === options.ownerUid)
  return ours ? level : 0
}

/** The `medal_info` object gifts and super chats carry. */
function medalInfoLevel(value: unknown, options: ConvertBilibiliCommandOptions): number {
  const medal = asRecord(value)
  return roomMedalLevel(
    Number(medal.medal_level ?? 0),
    Number(medal.anchor_roomid ?? 0),
    Number(medal.target_id ?? 0),
    options,
  )
}

/** Stickers (`dm_type` 1) and inline emoticons (`[dog]`, `[热词系列_知识增加]`) as words a model reads. */
function readableDanmakuText(text: string, danmakuType: number, extra: Record<string, unknown>): string {
  if (danmakuType === 1) return `（表情：${emoticonName(text)}）`
  const emoticons = asRecord(extra.emots)
  let readable = text
  for (const token of Object.keys(emoticons))
    readable = readable.replaceAll(token, `（表情：${emoticonName(token)}）`)
  return readable
}

function emoticonName(token: string): string {
  const bare = token.replace(/^\[|\]$/g, '')
  return bare.slice(bare.indexOf('_') + 1) || bare
}

function convertGift(
  data: Record<string, unknown>,
  options: ConvertBilibiliCommandOptions,
): BilibiliCommandResult | undefined {
  const totalCoins = Number(data.total_coin ?? Number(data.price ?? 0) * Number(data.num ?? 1))
  if (data.coin_type !== 'gold' || !(totalCoins > 0)) return { kind: 'counted', what: 'silver_gift' }
  const uid = Number(data.uid ?? 0)
  const giftName = String(data.giftName ?? data.gift_name ?? '礼物')
  const num = Number(data.num ?? 1)
  return {
    kind: 'message',
    from: 'gift',
    count: num,
    message: {
      id: `gift:${String(data.tid ?? data.rnd ?? `${uid}:${data.timestamp}`)}`,
      speaker: speakerOf(uid, String(data.uname ?? ''), Number(data.guard_level ?? 0), options),
      text: `${String(data.action ?? '投喂')} ${giftName} ×${num}`,
      gift: { name: giftName, value: yuan(totalCoins) },
    },
    fan: { medalLevel: medalInfoLevel(data.medal_info, options) },
  }
}

function convertGuard(
  data: Record<string, unknown>,
  options: ConvertBilibiliCommandOptions,
): BilibiliCommandResult | undefined {
  const uid = Number(data.uid ?? 0)
  const giftName = String(data.gift_name ?? '舰长')
  const num = Number(data.num ?? 1)
  return {
    kind: 'message',
    from: 'guard',
    count: num,
    message: {
      id: `guard:${uid}:${String(data.start_time ?? '')}:${String(data.gift_id ?? '')}`,
      speaker: speakerOf(uid, String(data.username ?? ''), Number(data.guard_level ?? 3), options),
      text: `开通了${giftName}${num > 1 ? ` ×${num}` : ''}`,
      gift: { name: giftName, value: yuan(Number(data.price ?? 0) * num) },
    },
    fan: { medalLevel: 0 },
  }
}

function convertSuperChat(
  data: Record<string, unknown>,
  options: ConvertBilibiliCommandOptions,
): BilibiliCommandResult | undefined {
  const userInfo = asRecord(data.user_info)
  const uid = Number(data.uid ?? 0)
  return {
    kind: 'message',
    from: 'super_chat',
    message: {
      id: `sc:${String(data.id ?? '')}`,
      speaker: speakerOf(uid, String(userInfo.uname ?? ''), Number(userInfo.guard_level ?? 0), options),
      text: String(data.message ?? '').trim(),
      gift: { name: '醒目留言', value: Number(data.price ?? 0) },
    },
    fan: {
      medalLevel: medalInfoLevel(data.medal_info, options),
      ...(uid > 0 && Number.isFinite(Number(userInfo.user_level))
        ? { userLevel: Number(userInfo.user_level) }
        : {}),
    },
  }
}

function speakerOf(uid: number, name: string, guardLevel: number, options: ConvertBilibiliCommandOptions) {
  const role: AudienceRole =
    uid > 0 && uid === options.ownerUid ? 'owner' : guardLevel > 0 ? 'member' : 'viewer'
  return { id: uid > 0 ? String(uid) : `name:${name}`, name, role }
}

function yuan(goldCoins: number): number {
  return Math.round((goldCoins / goldPerYuan) * 100) / 100
}

function parseExtra(extra: unknown): Record<string, unknown> {
  if (typeof extra !== 'string') return asRecord(extra)
  try {
    return asRecord(JSON.parse(extra))
  } catch {
    return {}
  }
}

function asRecord(value: unknown): Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {}
}
