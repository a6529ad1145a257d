/**
 * The reply parser: model text deltas in; display deltas, emotions, sentences and `done` out
 * (SPEC R2). Four streaming stages, each reading every character once:
 * (inner thought →) envelope (JSON/prefix emotion) → (inner thought → silence →) inline tags →
 * display text + sentence splitter → speech filter. The thought marker is looked for both before
 * the envelope (opening the whole reply) and after it (opening the reply's text: inside the JSON
 * `text`, after the emotion line), so a model that puts it either way never has it spoken.
 * Sentences wait until the reply's emotion is known (a model may write `"text"` before `"emotion"`),
 * so none is spoken with the wrong one; display deltas never wait.
 */
import { characterSchema, sentenceSchema } from '../config/schema.js'
import { appendText } from '../shared/append-text.js'
import { CharpipeError } from '../shared/errors.js'
import { getLogger } from '../shared/logger.js'
import { stripUnsafeCharacters } from '../shared/strip-unsafe-characters.js'
import { createSilenceGate, type SilenceGate } from './create-silence-gate.js'
import { createThoughtExtractor, type ThoughtExtractor } from './create-thought-extractor.js'
import { createEmotionResolver } from './emotion-resolver.js'
import { createInlineTagExtractor, type InlineTagExtractor } from './inline-emotion-tags.js'
import { createReplyEnvelopeDecoder } from './reply-envelope-decoder.js'
import { createSentenceSplitter, type SplitSentence } from './sentence-splitter.js'
import { createSpeechFilter } from './speech-filter.js'
import type { ReplyEvent, ReplyParser, ReplyParserOptions } from './types.js'

const replyFormats = new Set(['json', 'prefix', 'auto', 'plain'])
let defaults: {
  character: ReturnType<typeof characterSchema.parse>
  sentence: ReturnType<typeof sentenceSchema.parse>
}

/** The config schema holds the defaults; they are read once from there. */
function readDefaults() {
  defaults ??= { character: characterSchema.parse({}), sentence: sentenceSchema.parse({}) }
  return defaults
}

function logToLogger(level: 'debug' | 'warn', message: string): void {
  getLogger('reply')[level](message)
}

function toCount(value: number | undefined, name: string): number {
  if (value === undefined) return 0
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
    throw new CharpipeError(
      'invalid_config',
      `reply parser: ${name} must be a number >= 0, got ${String(value)}`,
    )
  }
  return Math.floor(value)
}

class StreamingReplyParser implements ReplyParser {
  private readonly defaultEmotion: string
  private readonly write: (text: string) => void
  private readonly envelope
  private readonly thought: ThoughtExtractor | undefined
  private readonly textThought: ThoughtExtractor | undefined
  private readonly tags: InlineTagExtractor | undefined
  private readonly splitter
  private readonly silence: SilenceGate | undefined
  private readonly earlyRelease: boolean
  private readonly speech
  private readonly resolver

  private events: ReplyEvent[] = []
  private pendingDisplay = ''
  private display = ''
  private baseEmotion: string | undefined
  private tagEmotion: string | undefined
  private lastEmitted: string | undefined
  private queue: SplitSentence[] = []
  private nextIndex = 0
  private ended = false

  constructor(options: ReplyParserOptions) {
    const { character, sentence } = readDefaults()
    const format = options.replyFormat ?? character.reply_format
    if (!replyFormats.has(format)) {
      throw new CharpipeError(
        'invalid_config',
        `reply parser: unknown replyFormat ${JSON.stringify(format)} (json, prefix, auto, plain)`,
      )
    }
    const log = options.log ?? logToLogger
    this.defaultEmotion = options.defaultEmotion || character.default_emotion
    this.resolver = createEmotionResolver({
      defaultEmotion: this.defaultEmotion,
      emotions: options.emotions ?? character.emotions,
      aliases: options.emotionAliases ?? character.emotion_aliases,
      log,
    })
    this.earlyRelease = options.earlyRelease ?? sentence.early_release
    this.speech = createSpeechFilter(options.speechFilters ?? sentence.speech_filters)
    this.splitter = createSentenceSplitter({
      minChars: toCount(options.minChars, 'minChars'),
      maxChars: toCount(options.maxChars, 'maxChars'),
      firstClauseChars: toCount(options.firstClauseChars, 'firstClauseChars'),
      onSentence: (split) => this.acceptSentence(split),
    })
    const acceptText = (text: string) => {
      this.pendingDisplay += text
      this.splitter.write(text)
    }
    this.tags = options.inlineEmotionTags
      ? createInlineTagExtractor({
          resolver: this.resolver,
          onText: acceptText,
          onEmotion: (emotion) => {
            this.tagEmotion = emotion
            this.splitter.setEmotion(emotion)
          },
        })
      : undefined
    const tags = this.tags
    const write: (text: string) => void = tags ? (text) => tags.write(text) : acceptText
    // Before the inline tags, which would read `[silence]` as a label.
    this.silence = options.silence ? createSilenceGate({ onText: write }) : undefined
    const silence = this.silence
    this.write = silence ? (text) => silence.write(text) : write
    const thoughts = options.thoughts === true
    const acceptThought = (text: string) => this.acceptThought(text)
    this.textThought = thoughts
      ? createThoughtExtractor({ onText: (text) => this.write(text), onThought: acceptThought })
      : undefined
    const textThought = this.textThought
    this.envelope = createReplyEnvelopeDecoder({
      format,
      log,
      thoughts,
      handler: {
        onThought: acceptThought,
        // After the envelope, so characters written as JSON escapes (\u202e) are caught too.
        onText: (text) => {
          const clean = stripUnsafeCharacters(text)
          if (textThought) textThought.write(clean)
          else this.write(clean)
        },
        onEmotion: (label) => this.setBaseEmotion(this.resolver.resolve(label, 'warn'), true),
        onNoEmotion: () => this.setBaseEmotion(this.defaultEmotion, false),
      },
    })
    const envelope = this.envelope
    // Before the envelope: the marker opens the model's whole output, in every format.
    this.thought = thoughts
      ? createThoughtExtractor({
          onText: (text) => envelope.write(text),
          onThought: acceptThought,
        })
      : undefined
  }

  get displayText(): string {
    return this.display + this.pendingDisplay
  }

  get emotion(): string {
    return this.tagEmotion ?? this.baseEmotion ?? this.defaultEmotion
  }

  push(delta: string): ReplyEvent[] {
    if (this.ended) throw new CharpipeError('internal', 'reply parser: push() after end()')
    if (typeof delta !== 'string') {
      throw new CharpipeError('internal', `reply parser: a delta must be a string, got ${typeof delta}`)
    }
    if (delta) {
      if (this.thought) this.thought.write(delta)
      else this.envelope.write(delta)
    }
    if (this.earlyRelease) this.splitter.releaseAtChunkEnd()
    return this.takeEvents()
  }

  end(): ReplyEvent[] {
    if (this.ended) return []
    this.ended = true
    this.thought?.end()
    this.envelope.end()
    this.textThought?.end()
    const silent = this.silence?.end() ?? false
    this.tags?.end()
    this.splitter.end()
    if (this.baseEmotion === undefined) this.setBaseEmotion(this.defaultEmotion, false)
    const final = this.emotion
    // A silent reply shows no face of its own: only an emotion the model named goes out.
    if (final !== this.lastEmitted && !silent) this.emitEmotion(final)
    this.flushDisplay()
    this.events.push({
      type: 'done',
      text: this.display,
      emotion: final,
      ...(silent ? { silent: true as const } : {}),
    })
    return this.takeEvents()
  }

  private acceptThought(text: string): void {
    const thought = stripUnsafeCharacters(text)
    if (!thought) return
    this.flushDisplay()
    this.events.push({ type: 'thought', text: thought })
  }

  private setBaseEmotion(emotion: string, known: boolean): void {
    if (this.baseEmotion !== undefined) return
    this.baseEmotion = emotion
    // A default is not news: it is announced with the first sentence (or at the end) instead.
    if (known && this.tagEmotion === undefined) this.emitEmotion(emotion)
    this.flushQueue()
  }

  private acceptSentence(split: SplitSentence): void {
    const text = this.speech.filter(split.text)
    if (!text) return
    this.queue.push({ text, emotion: split.emotion })
    if (this.baseEmotion !== undefined) this.flushQueue()
  }

  private flushQueue(): void {
    for (const sentence of this.queue) {
      const emotion = sentence.emotion ?? this.baseEmotion ?? this.defaultEmotion
      if (emotion !== this.lastEmitted) this.emitEmotion(emotion)
      this.flushDisplay()
      this.events.push({ type: 'sentence', index: this.nextIndex++, text: sentence.text, emotion })
    }
    this.queue = []
  }

  private emitEmotion(emotion: string): void {
    this.flushDisplay()
    this.lastEmitted = emotion
    this.events.push({ type: 'emotion', emotion })
  }

  private flushDisplay(): void {
    if (!this.pendingDisplay) return
    this.events.push({ type: 'display-delta', text: this.pendingDisplay })
    this.display = appendText(this.display, this.pendingDisplay)
    this.pendingDisplay = ''
  }

  private takeEvents(): ReplyEvent[] {
    this.flushDisplay()
    const events = this.events
    this.events = []
    return events
  }
}

/**
 * Creates a push-based, synchronous reply parser for one reply.
 * @example
 * const parser = createReplyParser({ replyFormat: 'json' })
 * for (const delta of deltas) handle(parser.push(delta))
 * handle(parser.end())
 */
export function createReplyParser(options: ReplyParserOptions = {}): ReplyParser {
  return new StreamingReplyParser(options)
}
