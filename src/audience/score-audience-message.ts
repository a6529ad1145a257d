/**
 * The priority of a message: 1 plus the weight of everything that applies to it (owner, moderator,
 * gift, a mention of the character, a question, the speaker's first message, member). The reasons
 * are kept so the page can say why a message came first.
 */
import type { AudiencePolicy } from '../config/schema/audience.js'
import type { NormalizedText } from './normalize-chat-text.js'
import type { AudienceMessage } from './types.js'

export type PriorityReason = keyof AudiencePolicy['weights']

export interface MessageScore {
  priority: number
  reasons: PriorityReason[]
}

export interface ScoreAudienceMessageOptions {
  weights: AudiencePolicy['weights']
  /** The character's names, normalized (its name, its id). */
  names: readonly string[]
  firstMessage: boolean
}

// A question mark anywhere, or a Chinese question particle at the end.
const questionPattern = /[?？]|[吗呢么嘛][\s\p{P}]*$/u

export function mentionsCharacter(text: NormalizedText, names: readonly string[]): boolean {
  return names.some((name) => name !== '' && (text.folded.includes(name) || text.compact.includes(name)))
}

export function scoreAudienceMessage(
  message: AudienceMessage,
  text: NormalizedText,
  options: ScoreAudienceMessageOptions,
): MessageScore {
  const reasons: PriorityReason[] = []
  const role = message.speaker.role ?? 'viewer'
  if (role === 'owner') reasons.push('owner')
  if (role === 'moderator') reasons.push('moderator')
  if (message.gift) reasons.push('gift')
  if (mentionsCharacter(text, options.names)) reasons.push('mention')
  if (questionPattern.test(text.folded)) reasons.push('question')
  if (options.firstMessage) reasons.push('first_message')
  if (role === 'member') reasons.push('member')
  let priority = 1
  for (const reason of reasons) priority += options.weights[reason]
  return { priority, reasons }
}
