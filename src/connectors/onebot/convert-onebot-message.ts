/**
 * A OneBot message event as the audience message the selector reads: segments rendered to text
 * (an `at` of the bot, or a reply to one of its messages, becomes `@<character name>` so it counts
 * as a mention), images kept as images, the sender's group role mapped to an audience role. Total:
 * any JSON in any field converts, or is refused with the reason (no message id, no sender id,
 * nothing readable in the message); it never throws.
 */
import { type Language, readChatPlatformTexts } from '../../shared/language/index.js'
import type { AudienceMessageInput, AudienceRole } from '../connector-host.js'
import { parseCqMessage } from './parse-cq-message.js'
import { readOnebotId, readOnebotRecord, readOnebotText } from './read-onebot-field.js'

export interface ConvertOnebotMessageOptions {
  /** The event as received: any field may hold any JSON. */
  event: Record<string, unknown>
  /** The name the character is addressed by. */
  characterName: string
  /** Whether a message id is one the bot sent (a reply to it is a mention). */
  isOwnMessage: (messageId: string) => boolean
  /** The character's language: the words for images, emoji and an at of everyone. @default 'zh' */
  language?: Language
}

export type ConvertOnebotMessageResult =
  | {
      ok: true
      message: AudienceMessageInput
      /** The message mentions the bot or replies to it. */
      mentioned: boolean
    }
  | { ok: false; reason: OnebotRefusal; detail: string }

export type OnebotRefusal = 'no_message_id' | 'no_user_id' | 'no_segments'

const roles: Record<string, AudienceRole> = { owner: 'owner', admin: 'moderator', member: 'viewer' }
const maxImages = 4
/** Segments read from one message at most; QQ itself caps a message far below this. */
const maxSegments = 1000
/** A segment type shown as `[type]` is cut to this. */
const maxTypeChars = 32

/** Own keys only: a sender role of `constructor` or `__proto__` is a viewer, not Object's own. */
function roleOf(role: unknown): AudienceRole {
  return typeof role === 'string' && Object.hasOwn(roles, role) ? roles[role]! : 'viewer'
}

function readSegments(message: unknown): unknown[] | undefined {
  if (typeof message === 'string') return parseCqMessage(message)
  if (Array.isArray(message)) return message.slice(0, maxSegments)
  return undefined
}

export function convertOnebotMessage(options: ConvertOnebotMessageOptions): ConvertOnebotMessageResult {
  const { event } = options
  const id = readOnebotId(event.message_id)
  if (id === undefined) return { ok: false, reason: 'no_message_id', detail: 'message_id is not an id' }
  const userId = readOnebotId(event.user_id)
  if (userId === undefined) return { ok: false, reason: 'no_user_id', detail: 'user_id is not an id' }
  const segments = readSegments(event.message)
  if (segments === undefined)
    return { ok: false, reason: 'no_segments', detail: 'message is neither a segment array nor a string' }
  const selfId = readOnebotId(event.self_id)
  const texts = readChatPlatformTexts(options.language ?? 'zh')
  let text = ''
  let mentioned = false
  let readable = 0
  const images: string[] = []
  for (const item of segments) {
    const segment = readOnebotRecord(item)
    if (typeof segment.type !== 'string') continue
    readable += 1
    const data = readOnebotRecord(segment.data)
    switch (segment.type) {
      case 'text':
        text += readOnebotText(data.text)
        break
      case 'at': {
        const target = readOnebotText(data.qq)
        if (selfId !== undefined && target === selfId) {
          mentioned = true
          text += `@${options.characterName} `
        } else if (target === 'all') text += `${texts.atEveryone} `
        else text += `@${readOnebotText(data.name) || target} `
        break
      }
      case 'reply': {
        const repliedTo = readOnebotId(data.id)
        if (repliedTo !== undefined && options.isOwnMessage(repliedTo)) mentioned = true
        break
      }
      case 'image': {
        const url = readOnebotText(data.url) || readOnebotText(data.file)
        if (/^https?:\/\//.test(url) && images.length < maxImages) images.push(url)
        else text += texts.image
        break
      }
      case 'face':
        text += texts.emoji
        break
      default:
        text += `[${segment.type.slice(0, maxTypeChars)}]`
    }
  }
  if (readable === 0 && segments.length > 0)
    return { ok: false, reason: 'no_segments', detail: 'no segment of the message has a type' }
  text = text.replace(/\s+/g, ' ').trim()
  if (mentioned && !text.includes(`@${options.characterName}`)) text = `@${options.characterName} ${text}`
  const sender = readOnebotRecord(event.sender)
  const name = readOnebotText(sender.card) || readOnebotText(sender.nickname) || userId
  return {
    ok: true,
    mentioned,
    message: {
      id,
      speaker: { id: userId, name, role: roleOf(sender.role) },
      text,
      ...(images.length > 0 ? { images } : {}),
    },
  }
}
