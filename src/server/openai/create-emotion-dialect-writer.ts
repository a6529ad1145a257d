/**
 * The emotion of a reply in the dialect a front end reads (`server.clients[].profile.emotion`):
 * - `field`: an extra `emotion` field beside the content (charpipe's own clients);
 * - `act`: AIRI's inline `<|ACT {"emotion":{"name":"happy","intensity":1}}|>` token, at the start of
 *   the content and again where the emotion changes (AIRI's stage sets the expression only from these);
 * - `bracket`: Open-LLM-VTuber's inline `[name]` before the text it applies to (the keys of its
 *   model's `emotionMap`);
 * - `none`: the text alone.
 * The writer sits where display text leaves the server, so the text itself (sentence boundaries
 * included) is the engine's: a tag is only ever put before a delta, never inside one.
 */
import type { ServerClientConfig } from '../../config/schema.js'
import { convertEmotionToAiri } from './convert-emotion-to-airi.js'

export type EmotionDialect = ServerClientConfig['profile']['emotion']

export interface CreateEmotionDialectWriterOptions {
  dialect: EmotionDialect
  /** The client's name for each of the character's labels (`profile.emotion_names`). */
  emotionNames?: Readonly<Record<string, string>>
  /** The character's emotion until the model gives one (its `default_emotion`). */
  defaultEmotion: string
}

export interface EmotionDialectWriter {
  readonly dialect: EmotionDialect
  /** Whether the emotion travels as an `emotion` field (the `field` dialect only). */
  readonly usesField: boolean
  /** The reply's emotion is now `label` (the character's label); written before the next text. */
  setEmotion(label: string): void
  /** The content to send for a display-text delta: the delta, after a tag when one is due. */
  writeText(text: string): string
  /**
   * The whole reply for an answer that is not streamed. `finalText` is the turn's final display
   * text (display rules applied) and `streamedContent` what `writeText` returned, joined: with one
   * emotion throughout, its tag and the final text; with changes, the tags where they happened.
   */
  writeWhole(finalText: string, streamedContent: string, finalEmotion: string): string
}

/** AIRI's token for one expression name. */
export function formatActToken(name: string): string {
  return `<|ACT ${JSON.stringify({ emotion: { name, intensity: 1 } })}|>`
}

/** Open-LLM-VTuber's inline key for one expression name. */
export function formatBracketTag(name: string): string {
  return `[${name}]`
}

export function createEmotionDialectWriter(options: CreateEmotionDialectWriterOptions): EmotionDialectWriter {
  const { dialect } = options
  const names = options.emotionNames ?? {}
  const tagged = dialect === 'act' || dialect === 'bracket'
  const clientName = (label: string) =>
    names[label] ?? (dialect === 'act' ? convertEmotionToAiri(label) : label)
  const format = dialect === 'act' ? formatActToken : formatBracketTag
  let emotion = options.defaultEmotion
  // The client's name last written, and the tag of the start (for `writeWhole`).
  let written: string | undefined
  let firstTag = ''
  let tagsWritten = 0

  const writeText = (text: string): string => {
    if (!tagged || !text) return text
    const name = clientName(emotion)
    if (name === written) return text
    written = name
    const tag = format(name)
    if (tagsWritten === 0) firstTag = tag
    tagsWritten += 1
    return tag + text
  }

  return {
    dialect,
    usesField: dialect === 'field',
    setEmotion(label) {
      emotion = label
    },
    writeText,
    writeWhole(finalText, streamedContent, finalEmotion) {
      if (!tagged) return finalText
      if (tagsWritten > 1) return streamedContent
      if (tagsWritten === 1) return finalText ? firstTag + finalText : ''
      // No text was streamed (a reply answered again from the store): its final emotion throughout.
      emotion = finalEmotion
      return writeText(finalText)
    },
  }
}
