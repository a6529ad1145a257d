/**
 * Puts a group chat's input into words the model reads: who is speaking and what others said since
 * the last reply (`[群聊记录]` / `[当前消息]` by default, `conversation.group`'s templates). Without
 * a speaker and without observed lines the input is left exactly as it is.
 */
import type { CharpipeConfig } from '../config/schema.js'
import type { Speaker, TurnInput } from '../context/types.js'
import type { ObservedLine } from './observed-lines.js'

type GroupSettings = CharpipeConfig['conversation']['group']

const maxObservedImages = 8

/** One pass, so a `{{…}}` inside a user's text is never replaced. */
function fillTemplate(template: string, values: Record<string, string>): string {
  return template.replace(/\{\{(\w+)\}\}/g, (whole, key: string) => values[key] ?? whole)
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

export function renderGroupInput(
  input: TurnInput,
  observed: readonly ObservedLine[],
  settings: GroupSettings,
): TurnInput {
  if (!input.speaker && observed.length === 0) return input
  const current = input.speaker ? renderLine(settings, input.speaker, input.text) : input.text
  const text =
    observed.length === 0
      ? fillTemplate(settings.current_template, { current })
      : fillTemplate(settings.template, {
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
