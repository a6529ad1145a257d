/**
 * Whether a turn may end in silence (`conversation.silence.triggers`), and the note that tells the
 * model so. The note goes at the end of the turn's last user message, not in the system prompt:
 * it holds for this turn only, and the system prompt stays the same from turn to turn (a prompt
 * cache keeps it).
 */
import type { CharpipeConfig } from '../../config/schema.js'
import { readSilenceTexts, resolveCharacterLanguage, showEmotionLabel } from '../../shared/language/index.js'
import type { ChatMessage } from '../../shared/messages.js'
import type { TurnOutput } from './turn-output.js'

export interface IsSilenceAllowedOptions {
  config: CharpipeConfig
  trigger: TurnOutput['trigger']
  /** Who sent an input: a connector's 1:1 chat counts as the `connector` trigger. */
  source?: 'connector' | undefined
}

export function isSilenceAllowed(options: IsSilenceAllowedOptions): boolean {
  const trigger =
    options.trigger === 'input' && options.source === 'connector' ? 'connector' : options.trigger
  // A `say` turn has no model reply to be silent with.
  return trigger !== 'say' && options.config.conversation.silence.triggers.includes(trigger)
}

/** The messages with the silence note added to the last user message (a copy; the rest shared). */
export function addSilenceNote(messages: readonly ChatMessage[], config: CharpipeConfig): ChatMessage[] {
  const { character } = config
  const language = resolveCharacterLanguage(character)
  const note = readSilenceTexts(language).silenceAllowed(
    character.reply_format,
    showEmotionLabel(character.default_emotion, language),
    character.thoughts,
  )
  const copy = [...messages]
  const index = copy.findLastIndex((message) => message.role === 'user')
  const last = copy[index]
  if (!last) return [...copy, { role: 'user', content: note }]
  copy[index] = {
    ...last,
    content:
      typeof last.content === 'string'
        ? `${last.content}\n\n${note}`
        : [...last.content, { type: 'text', text: `\n\n${note}` }],
  }
  return copy
}
