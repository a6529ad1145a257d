/**
 * A Twitch chat `PRIVMSG` as an audience message: badges give the role (broadcaster → owner,
 * moderator → moderator, subscriber / VIP / founder → member), cheered bits become a gift, and an
 * `@bot` mention or a reply to the bot's own message is written as `@<character name>` so the
 * selector counts it as a mention.
 */
import type { AudienceMessageInput, AudienceRole } from '../connector-host.js'
import type { IrcMessage } from './parse-irc-line.js'

export interface ConvertTwitchMessageOptions {
  message: IrcMessage
  characterName: string
  /** The bot's login (lowercase); empty when reading anonymously. */
  botLogin: string
}

export function convertTwitchMessage(options: ConvertTwitchMessageOptions): AudienceMessageInput | undefined {
  const { message } = options
  if (message.command !== 'PRIVMSG') return undefined
  const tags = message.tags
  const login = (message.source ?? '').toLowerCase()
  let text = (message.params[1] ?? '').replace(/^\u0001ACTION (.*)\u0001$/, '$1')
  if (options.botLogin !== '') {
    // The login is written into a pattern: escaped, so a login with pattern characters is only text.
    const mention = new RegExp(`@${escapePattern(options.botLogin)}\\b`, 'gi')
    text = text.replace(mention, `@${options.characterName}`)
    const repliesToBot = (tags['reply-parent-user-login'] ?? '').toLowerCase() === options.botLogin
    // A reply's text starts with `@parent`, already rewritten above when the parent is the bot.
    if (repliesToBot && !text.includes(`@${options.characterName}`))
      text = `@${options.characterName} ${text}`
  }
  const bits = Number(tags.bits ?? 0)
  return {
    id: tags.id || `${login}:${tags['tmi-sent-ts'] ?? ''}`,
    speaker: {
      id: tags['user-id'] || login,
      name: tags['display-name'] || login,
      role: roleOf(tags.badges ?? ''),
    },
    text: text.trim(),
    ...(Number.isFinite(bits) && bits > 0 ? { gift: { name: 'bits', value: bits } } : {}),
  }
}

function escapePattern(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
}

function roleOf(badges: string): AudienceRole {
  const names = new Set(badges.split(',').map((badge) => badge.split('/')[0]))
  if (names.has('broadcaster')) return 'owner'
  if (names.has('moderator')) return 'moderator'
  if (names.has('subscriber') || names.has('vip') || names.has('founder')) return 'member'
  return 'viewer'
}
