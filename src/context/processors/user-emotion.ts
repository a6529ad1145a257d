/**
 * user-emotion (350, SPEC R2.5, seed 000): the emotion the speech recogniser heard is appended to
 * the input as `[用户语气：<word>]` (`[User tone: <word>]` for an English character), mapped through
 * `character.user_emotion_map`. Nothing is added
 * for an empty or neutral label; a label the map does not know is passed through as it is. Past
 * user turns in the history get the note their input had (`history`, on by default), so the model
 * sees the same shape in every user turn.
 */
import {
  detectTextLanguage,
  type Language,
  readScaffoldingTexts,
  resolveCharacterLanguage,
} from '../../shared/language/index.js'
import { lookUpOwn } from '../../shared/look-up-own.js'
import type { ChatMessage } from '../../shared/messages.js'
import type { ContextProcessor } from '../types.js'
import { checkType, readBoolean } from './read-settings.js'

/** The words appended for `emotion`, or undefined when nothing should be appended. */
export function formatUserEmotion(
  emotion: string | undefined,
  map: Record<string, string>,
  language: Language = 'zh',
): string | undefined {
  const label = emotion?.trim()
  if (!label || label.toLowerCase() === 'neutral') return undefined
  // Own keys only: the recogniser's label `toString` is passed through, not Object's function.
  const mapped = lookUpOwn(map, label) ?? lookUpOwn(map, label.toLowerCase()) ?? label
  // The default map's words are Chinese: an English character gets the recogniser's own label.
  const word = language === 'en' && detectTextLanguage(mapped) === 'zh' ? label : mapped
  return readScaffoldingTexts(language).userTone(word)
}

function appendText(message: ChatMessage, suffix: string): void {
  if (typeof message.content === 'string') {
    message.content = `${message.content}${suffix}`
    return
  }
  const parts = [...message.content]
  const lastText = parts.findLastIndex((part) => part.type === 'text')
  if (lastText === -1) parts.unshift({ type: 'text', text: suffix })
  else {
    const part = parts[lastText] as { type: 'text'; text: string }
    parts[lastText] = { type: 'text', text: `${part.text}${suffix}` }
  }
  message.content = parts
}

export const userEmotion: ContextProcessor = {
  id: 'user-emotion',
  name: '用户情感注入',
  description:
    'Appends the recognised user emotion to the input as [用户语气：…] (character.user_emotion_map).',
  priority: 350,
  defaultEnabled: true,
  configFields: [
    {
      key: 'history',
      label: 'Also in past turns',
      type: 'boolean',
      default: true,
      description: 'Past user turns in the history get the note of the emotion stored with them.',
    },
  ],
  validateSettings(settings) {
    const issue = checkType(settings, 'history', 'boolean')
    return issue ? [issue] : []
  },
  execute(context, settings) {
    const map = context.character.user_emotion_map
    const language = resolveCharacterLanguage(context.character)
    if (readBoolean(settings, 'history', true)) {
      for (const message of context.messages) {
        if (message.source !== 'history' || message.role !== 'user') continue
        const note = formatUserEmotion(message.meta?.emotion as string | undefined, map, language)
        if (note) appendText(message, note)
      }
    }
    const tag = formatUserEmotion(context.input.emotion, map, language)
    if (!tag) return
    const input = context.messages.findLast((message) => message.source === 'input')
    if (!input) return
    appendText(input, tag)
  },
}
