/**
 * Puts a group chat's input into words the model reads: who is speaking and what others said since
 * the last reply (`conversation.group`'s templates; by default `[群聊记录]` / `[当前消息]`, or
 * `[Group chat]` / `[Current message]` for an English character). Without a speaker and without
 * observed lines the input is left exactly as it is. The input is stored as rendered, so a stored
 * turn is read back with the frame it had, whatever the language or templates are now.
 */
import type { CharpipeConfig } from '../config/schema.js'
import { findCharacter } from '../config/select-character-config.js'
import type { Speaker, TurnInput } from '../context/types.js'
import { type Language, readGroupFrameTexts, resolveCharacterLanguage } from '../shared/language/index.js'
import { lookUpOwn } from '../shared/look-up-own.js'
import type { ObservedLine } from './observed-lines.js'

type GroupSettings = CharpipeConfig['conversation']['group']

const maxObservedImages = 8

/**
 * One pass, so a `{{…}}` inside a user's text is never replaced. Own keys only: a configured
 * `{{toString}}` is left as written, not replaced by Object.prototype's function.
 */
function fillTemplate(template: string, values: Record<string, string>): string {
  return template.replace(/\{\{(\w+)\}\}/g, (whole, key: string) => lookUpOwn(values, key) ?? whole)
}

/**
 * One line per thing said: line breaks (and other control characters) inside a name, an id or an
 * observed line become spaces, so no one in the group can forge a `[当前消息]` or another speaker.
 */
function flattenLine(text: string): string {
  return text.replace(/[\u0000-\u001f\u007f\u2028\u2029]+/g, ' ')
}

export function renderLine(settings: GroupSettings, speaker: Speaker, text: string): string {
  const id = flattenLine(speaker.id)
  return fillTemplate(settings.line_template, { name: flattenLine(speaker.name || speaker.id), id, text })
}

/** The language of the character an input speaks to (the default character's when none or unknown). */
export function inputLanguageOf(config: CharpipeConfig, input: Pick<TurnInput, 'character'>): Language {
  return resolveCharacterLanguage(findCharacter(config, input.character) ?? config.character)
}

/**
 * `language`: the character's (`inputLanguageOf`), for the templates left empty; Chinese when not
 * given. Every caller rendering one input must give the same: the rendered text is also the key a
 * turn prepared ahead of its input is found by.
 */
export function renderGroupInput(
  input: TurnInput,
  observed: readonly ObservedLine[],
  settings: GroupSettings,
  language: Language = 'zh',
): TurnInput {
  if (!input.speaker && observed.length === 0) return input
  const frame = readGroupFrameTexts(language)
  const current = input.speaker ? renderLine(settings, input.speaker, input.text) : input.text
  const text =
    observed.length === 0
      ? fillTemplate(settings.current_template || frame.currentTemplate, { current })
      : fillTemplate(settings.template || frame.template, {
          observed: observed
            .map((line) => renderLine(settings, line.speaker, flattenLine(line.text)))
            .join('\n'),
          current,
        })
  // Images of observed lines ride along, the newest few only: a flood must not cost a vision call each.
  const observedImages = observed.flatMap((line) => line.images ?? []).slice(-maxObservedImages)
  const images = [...observedImages, ...(input.images ?? [])]
  return {
    ...input,
    text,
    spokenText: input.text,
    ...(images.length > 0 ? { images } : {}),
  }
}
