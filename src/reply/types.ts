/**
 * The reply parser turns the model's text deltas into what a character needs: display text for
 * subtitles, the emotion, and sentences for speech synthesis. It is push-based and synchronous
 * (`push` per delta, `end` once) so it adds no awaits to the hot path; `parseReplyStream` wraps it
 * for async iterables.
 */
import type { ReplyFormat, SpeechFilter } from '../config/schema.js'

export interface ReplyParserOptions {
  /** @default 'auto' */
  replyFormat?: ReplyFormat
  /** @default '平静' */
  defaultEmotion?: string
  /** Labels the model may use; used for inline `[label]` tags. */
  emotions?: string[]
  /** Other labels mapped to configured ones (happy → 开心). */
  emotionAliases?: Record<string, string>
  /** @default false */
  inlineEmotionTags?: boolean
  /** Merge sentences shorter than this into the next (code points; 0: off). */
  minChars?: number
  /** Cut sentences longer than this at a comma (0: off). */
  maxChars?: number
  /** Emit the first clause of the reply at a comma once it has this many characters (0: off). */
  firstClauseChars?: number
  /**
   * Release a sentence when a model chunk ends right after its `。！？!?；;` instead of waiting for
   * the next chunk (see `sentence.early_release`). Off: sentences do not depend on chunking at all.
   * @default true
   */
  earlyRelease?: boolean
  /** @default ['markdown'] */
  speechFilters?: SpeechFilter[]
  /**
   * The reply may be silence: `[silence]` alone (in the JSON format as its `text`) releases no text
   * and no sentence, and `done` says `silent: true`. Text is held only while the reply so far could
   * still be that signal. Off: `[silence]` is text like any other.
   * @default false
   */
  silence?: boolean
  /**
   * The reply may open with the character's inner thought: `<thought>…</thought>` before
   * everything else (any format), or the JSON envelope's `thought` field. It goes out as a
   * `thought` event, never as display text or a sentence. Off: neither is read as a thought.
   * @default false
   */
  thoughts?: boolean
  /** Receives the parser's fallbacks and unknown labels (WARNING / DEBUG per SPEC R2). */
  log?: (level: 'debug' | 'warn', message: string) => void
}

export type ReplyEvent =
  /** Display text delta (emotion JSON and tags removed, original Markdown kept). */
  | { type: 'display-delta'; text: string }
  /** The character's inner thought, whole, once it is complete (with `thoughts` on). */
  | { type: 'thought'; text: string }
  /** The emotion, once known and whenever it changes. */
  | { type: 'emotion'; emotion: string }
  /** A sentence ready for speech synthesis (speech filters applied). */
  | { type: 'sentence'; index: number; text: string; emotion: string }
  /** The end: the full display text and the final emotion; `silent` when the reply was `[silence]`. */
  | { type: 'done'; text: string; emotion: string; silent?: true }

export interface ReplyParser {
  /** Feeds one model text delta; returns the events it completes. */
  push(delta: string): ReplyEvent[]
  /** The stream ended: flushes the rest and returns the remaining events, `done` last. */
  end(): ReplyEvent[]
  /** Display text so far. */
  readonly displayText: string
  /** Current emotion (the default until one is known). */
  readonly emotion: string
}
