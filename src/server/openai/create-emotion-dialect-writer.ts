/**
 * The emotion of a reply in the dialect a front end reads (`server.clients[].profile.emotion`):
 * - `field`: an extra `emotion` field beside the content (charpipe's own clients);
 * - `act`: AIRI's inline `<|ACT:{"emotion":{"name":"happy","intensity":1}}|>` token, at the start of
 *   the content and again where the emotion changes (AIRI's stage sets the expression only from these);
 * - `bracket`: Open-LLM-VTuber's inline `[name]` before the text it applies to (the keys of its
 *   model's `emotionMap`);
 * - `none`: the text alone.
 * The writer sits where display text leaves the server, so the text itself (sentence boundaries
 * included) is the engine's: a tag is only ever put between deltas, never inside one. The engine
 * announces a sentence's emotion after the display text of that sentence (`llm_emotion`, then
 * `llm_sentence`), so an inline dialect holds the display text until its emotion is known: a
 * sentence at a time, which is how these front ends speak it anyway.
 */

import type { ServerClientConfig } from '../../config/schema.js'
import { writeActToken } from '../../reply/act-token-grammar.js'
import { writeBracketTag } from '../../reply/bracket-tag-grammar.js'
import { translateEmotionLabel } from '../../shared/language/emotion-labels.js'
import { lookUpOwn } from '../../shared/look-up-own.js'
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
  /** A display-text delta: the content to send now ('' while an inline dialect holds it). */
  writeText(text: string): string
  /**
   * The emotion (a character's label) of the text held so far, and of what follows until the next
   * one (`llm_emotion`, or an `llm_sentence`'s emotion): the held text, after a tag when it changed.
   */
  writeEmotion(label: string): string
  /** The reply ended with `finalEmotion`: whatever is still held. */
  end(finalEmotion: string): string
  /**
   * The whole reply for an answer that is not streamed. `finalText` is the turn's final display
   * text (display rules applied) and `streamedContent` what the writer returned, joined: with one
   * emotion throughout, its tag and the final text; with changes, the tags where they happened.
   */
  writeWhole(finalText: string, streamedContent: string, finalEmotion: string): string
}

/** AIRI's token for one expression name (the grammar the reply parser reads it by). */
export function formatActToken(name: string): string {
  return writeActToken({ name, intensity: 1 })
}

/** Open-LLM-VTuber's inline key for one expression name (the grammar the reply parser reads it by). */
export function formatBracketTag(name: string): string {
  return writeBracketTag(name)
}

export function createEmotionDialectWriter(options: CreateEmotionDialectWriterOptions): EmotionDialectWriter {
  const { dialect } = options
  const names = options.emotionNames ?? {}
  const inline = dialect === 'act' || dialect === 'bracket'
  // A map written for the Chinese default labels (`开心: joy`) still names an English character's
  // `happy`, and the reverse: a default emotion is looked up by its name in either language.
  // Own keys only: a character label named `toString` is no key of the map, not Object's function.
  const clientName = (label: string) =>
    lookUpOwn(names, label) ??
    lookUpOwn(names, translateEmotionLabel(label, 'zh')) ??
    lookUpOwn(names, translateEmotionLabel(label, 'en')) ??
    (dialect === 'act' ? convertEmotionToAiri(label) : label)
  const format = dialect === 'act' ? formatActToken : formatBracketTag
  let emotion = options.defaultEmotion
  let held = ''
  // The client's name last written, and the tag of the start (for `writeWhole`).
  let written: string | undefined
  let firstTag = ''
  let tagsWritten = 0

  const release = (): string => {
    if (!held) return ''
    const text = held
    held = ''
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
    writeText(text) {
      if (!inline) return text
      held += text
      return ''
    },
    writeEmotion(label) {
      emotion = label
      return inline ? release() : ''
    },
    end(finalEmotion) {
      if (!inline) return ''
      if (held) emotion = finalEmotion
      return release()
    },
    writeWhole(finalText, streamedContent, finalEmotion) {
      if (!inline) return finalText
      if (tagsWritten > 1) return streamedContent
      if (tagsWritten === 1) return finalText ? firstTag + finalText : ''
      // No text was streamed (a reply answered again from the store): its final emotion throughout.
      held = finalText
      emotion = finalEmotion
      return release()
    },
  }
}
