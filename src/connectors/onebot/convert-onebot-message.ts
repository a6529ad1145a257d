/**
 * A OneBot message event as the audience message the selector reads: segments rendered to text
 * (an `at` of the bot, or a reply to one of its messages, becomes `@<character name>` so it counts
 * as a mention), images kept as images, the sender's group role mapped to an audience role.
 */
import { type Language, readChatPlatformTexts } from '../../shared/language/index.js'
import type { AudienceMessageInput, AudienceRole } from '../connector-host.js'
import type { OnebotMessageEvent, OnebotSegment } from './onebot-types.js'
import { parseCqMessage } from './parse-cq-message.js'

export interface ConvertOnebotMessageOptions {
  event: OnebotMessageEvent
  /** The name the character is addressed by. */
  characterName: string
  /** Whether a message id is one the bot sent (a reply to it is a mention). */
  isOwnMessage: (messageId: string) => boolean
  /** The character's language: the words for images, emoji and an at of everyone. @default 'zh' */
  language?: Language
}

export interface ConvertOnebotMessageResult {
  message: AudienceMessageInput
  /** The message mentions the bot or replies to it. */
  mentioned: boolean
}

const roles: Record<string, AudienceRole> = { owner: 'owner', admin: 'moderator', member: 'viewer' }
const maxImages = 4

/** Own keys only: a sender role of `constructor` or `__proto__` is a viewer, not Object's own. */
function roleOf(role: unknown): AudienceRole {
  return typeof role === 'string' && Object.hasOwn(roles, role) ? roles[role]! : 'viewer'
}

export function convertOnebotMessage(options: ConvertOnebotMessageOptions): ConvertOnebotMessageResult {
  const { event } = options
  const segments: OnebotSegment[] =
    typeof event.message === 'string'
      ? parseCqMessage(event.message)
      : Array.isArray(event.message)
        ? event.message
        : []
  const selfId = String(event.self_id)
  const texts = readChatPlatformTexts(options.language ?? 'zh')
  let text = ''
  let mentioned = false
  const images: string[] = []
  for (const segment of segments) {
    const data = segment.data ?? {}
    switch (segment.type) {
      case 'text':
        text += String(data.text ?? '')
        break
      case 'at': {
        const target = String(data.qq ?? '')
        if (target === selfId) {
          mentioned = true
          text += `@${options.characterName} `
        } else if (target === 'all') text += `${texts.atEveryone} `
        else text += `@${String(data.name ?? target)} `
        break
      }
      case 'reply':
        if (options.isOwnMessage(String(data.id ?? ''))) mentioned = true
        break
      case 'image': {
        const url = String(data.url ?? data.file ?? '')
        if (/^https?:\/\//.test(url) && images.length < maxImages) images.push(url)
        else text += texts.image
        break
      }
      case 'face':
        text += texts.emoji
        break
      default:
        text += `[${segment.type}]`
    }
  }
  text = text.replace(/\s+/g, ' ').trim()
  if (mentioned && !text.includes(`@${options.characterName}`)) text = `@${options.characterName} ${text}`
  const sender = event.sender ?? {}
  const name = sender.card || sender.nickname || String(event.user_id)
  return {
    mentioned,
    message: {
      id: String(event.message_id),
      speaker: { id: String(event.user_id), name, role: roleOf(sender.role) },
      text,
      ...(images.length > 0 ? { images } : {}),
    },
  }
}
