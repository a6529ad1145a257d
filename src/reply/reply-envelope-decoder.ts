/**
 * Takes the emotion envelope off a streaming reply (SPEC R2.1–R2.3): `{"emotion","text"}` (json),
 * `{"emotion"}` followed by plain text (prefix), either (auto), or nothing (plain). With thoughts
 * on, the envelope's `thought` string is the character's inner thought, never text. The JSON is read
 * by a small state machine, one character at a time, so the `text` value is passed on while it is
 * still streaming; nothing is re-parsed when a chunk arrives.
 */
import type { ReplyFormat } from '../config/schema.js'
import { maxThoughtUnits } from './create-thought-extractor.js'
import { JsonStringDecoder } from './json-string-decoder.js'

export interface ReplyEnvelopeHandler {
  /** Reply text, decoded (for display and speech). */
  onText(text: string): void
  /** The envelope's emotion label, as written by the model. */
  onEmotion(label: string): void
  /** The reply carries no emotion: the default applies. */
  onNoEmotion(): void
  /** The envelope's `thought` (only with `thoughts` on), decoded, whole. */
  onThought?(text: string): void
}

export interface ReplyEnvelopeDecoderOptions {
  format: ReplyFormat
  handler: ReplyEnvelopeHandler
  /** Read a `thought` key as the inner thought (else it is skipped like any other key). */
  thoughts?: boolean
  log: (level: 'debug' | 'warn', message: string) => void
}

export interface ReplyEnvelopeDecoder {
  write(delta: string): void
  end(): void
}

enum State {
  Start,
  Fence,
  FenceLine,
  AfterFence,
  ExpectKey,
  Key,
  ExpectColon,
  ExpectValue,
  TextValue,
  EmotionValue,
  ThoughtValue,
  SkipString,
  SkipNested,
  SkipLiteral,
  ExpectCommaOrEnd,
  AfterObject,
  Plain,
}

/** The envelope is small; this much without reaching the text means it is not one. */
const MAX_ENVELOPE_UNITS = 4096
const MAX_KEY_UNITS = 64
const MAX_EMOTION_UNITS = 64
const MAX_FENCE_LINE_UNITS = 24

const isJsonWhitespace = (code: number) => code === 0x20 || code === 0x0a || code === 0x0d || code === 0x09
const isLiteralCharacter = (code: number) =>
  (code >= 0x30 && code <= 0x39) ||
  (code >= 0x61 && code <= 0x7a) ||
  code === 0x2d ||
  code === 0x2b ||
  code === 0x2e ||
  (code >= 0x41 && code <= 0x5a)

class StreamingEnvelopeDecoder implements ReplyEnvelopeDecoder {
  private state: State
  /** Everything read before the text started: replayed as text if the envelope turns out not to be JSON. */
  private raw = ''
  private committed = false
  private fenced = false
  private fenceCount = 0
  private fenceLineLength = 0
  private current = 0
  private currentDelta = ''
  private emotionBuffer = ''
  private thoughtBuffer = ''
  private key = ''
  private string = new JsonStringDecoder()
  private emotionLabel: string | undefined
  private emotionReported = false
  private nestedDepth = 0
  private nestedInString = false
  private nestedEscape = false

  constructor(private readonly options: ReplyEnvelopeDecoderOptions) {
    this.state = options.format === 'plain' ? State.Plain : State.Start
    if (this.state === State.Plain) this.reportNoEmotion()
  }

  write(delta: string): void {
    if (this.state === State.Plain) {
      if (delta) this.options.handler.onText(delta)
      return
    }
    const length = delta.length
    let index = 0
    while (index < length) {
      if (this.state === State.TextValue && this.string.idle) {
        index = this.streamText(delta, index)
        continue
      }
      // A character read above may have switched to plain text.
      if ((this.state as State) === State.Plain) {
        this.options.handler.onText(delta.slice(index))
        return
      }
      this.readCharacter(delta, index)
      index++
    }
  }

  private readCharacter(delta: string, index: number): void {
    const code = delta.charCodeAt(index)
    this.current = index
    this.currentDelta = delta
    if (!this.committed) {
      this.raw += delta[index]
      if (this.raw.length > MAX_ENVELOPE_UNITS) {
        this.fail('the envelope is too long')
        return
      }
    }
    this.step(code)
  }

  end(): void {
    const handler = this.options.handler
    switch (this.state) {
      case State.Plain:
      case State.AfterObject:
        return
      case State.Start:
        this.reportNoEmotion()
        if (this.raw) handler.onText(this.raw)
        this.state = State.Plain
        return
      case State.TextValue: {
        const rest = this.string.flush()
        if (rest) handler.onText(rest)
        break
      }
      case State.ThoughtValue:
        // Cut off inside the thought: what came is still thought, never text.
        this.reportThought(this.string.flush())
        break
    }
    if (!this.committed && this.emotionLabel === undefined) {
      this.fail('the reply ended inside the JSON')
      return
    }
    this.reportEmotion()
    this.state = State.Plain
  }

  /** The fast path: copies plain text of the `text` value up to the next quote or backslash. */
  private streamText(delta: string, start: number): number {
    let index = start
    const length = delta.length
    while (index < length) {
      const code = delta.charCodeAt(index)
      if (code === 0x22 || code === 0x5c || (code >= 0xd800 && code <= 0xdfff)) break
      index++
    }
    if (index > start) this.options.handler.onText(delta.slice(start, index))
    if (index < length) {
      this.readCharacter(delta, index)
      index++
    }
    return index
  }

  private step(code: number): void {
    switch (this.state) {
      case State.Start:
        if (isJsonWhitespace(code) || code === 0x3000) return
        if (code === 0x7b) this.state = State.ExpectKey
        else if (code === 0x60 && this.options.format !== 'prefix') {
          this.state = State.Fence
          this.fenceCount = 1
        } else this.usePlain()
        return
      case State.Fence:
        if (code === 0x60 && this.fenceCount < 3) {
          this.fenceCount++
          if (this.fenceCount === 3) {
            this.state = State.FenceLine
            this.fenced = true
          }
        } else this.fail('it starts with a backtick that is no code fence')
        return
      case State.FenceLine:
        if (code === 0x0a) this.state = State.AfterFence
        else if (++this.fenceLineLength > MAX_FENCE_LINE_UNITS) this.fail('the code fence holds no JSON')
        return
      case State.AfterFence:
        if (code === 0x7b) this.state = State.ExpectKey
        else if (!isJsonWhitespace(code)) this.fail('the code fence holds no JSON object')
        return
      case State.ExpectKey:
        if (code === 0x22) {
          this.state = State.Key
          this.key = ''
        } else if (code === 0x7d) this.closeObject()
        else if (!isJsonWhitespace(code) && code !== 0x2c) this.fail('a key was expected')
        return
      case State.Key:
        this.readKey(code)
        return
      case State.ExpectColon:
        if (code === 0x3a) this.state = State.ExpectValue
        else if (!isJsonWhitespace(code)) this.fail('":" was expected after a key')
        return
      case State.ExpectValue:
        this.startValue(code)
        return
      case State.TextValue:
        this.readText(code)
        return
      case State.EmotionValue:
        this.readEmotion(code)
        return
      case State.ThoughtValue:
        this.readThought(code)
        return
      case State.SkipString:
        if (this.string.next(code) === undefined) this.state = State.ExpectCommaOrEnd
        return
      case State.SkipNested:
        this.skipNested(code)
        return
      case State.SkipLiteral:
        if (isLiteralCharacter(code)) return
        this.state = State.ExpectCommaOrEnd
        this.step(code)
        return
      case State.ExpectCommaOrEnd:
        if (code === 0x2c) this.state = State.ExpectKey
        else if (code === 0x7d) this.closeObject()
        else if (!isJsonWhitespace(code)) this.fail('"," or "}" was expected')
        return
      case State.AfterObject:
        if (isJsonWhitespace(code) || (this.fenced && code === 0x60)) return
        this.options.log('debug', 'text after the reply JSON is kept as reply text')
        this.state = State.Plain
        this.options.handler.onText(this.currentCharacter())
        return
    }
  }

  private readKey(code: number): void {
    const decoded = this.string.next(code)
    if (decoded === undefined) {
      this.key += this.string.flush()
      this.state = State.ExpectColon
    } else if (this.key.length > MAX_KEY_UNITS) this.fail('a key is too long')
    else this.key += decoded
  }

  private startValue(code: number): void {
    if (isJsonWhitespace(code)) return
    const key = this.key.toLowerCase()
    if (code === 0x22) {
      if (key === 'text') {
        this.state = State.TextValue
        this.commit()
      } else if (key === 'emotion') {
        this.state = State.EmotionValue
        this.emotionBuffer = ''
      } else if (key === 'thought' && this.options.thoughts) {
        // An object whose thought has begun is the envelope: a failure later must not replay the
        // thought as text.
        this.state = State.ThoughtValue
        this.thoughtBuffer = ''
        this.commit()
      } else this.state = State.SkipString
    } else if (code === 0x7b || code === 0x5b) {
      this.state = State.SkipNested
      this.nestedDepth = 1
      this.nestedInString = false
    } else if (isLiteralCharacter(code)) this.state = State.SkipLiteral
    else this.fail('a value was expected')
  }

  private readText(code: number): void {
    const decoded = this.string.next(code)
    if (decoded === undefined) {
      const rest = this.string.flush()
      if (rest) this.options.handler.onText(rest)
      this.state = State.ExpectCommaOrEnd
    } else if (decoded) this.options.handler.onText(decoded)
  }

  private readEmotion(code: number): void {
    const decoded = this.string.next(code)
    if (decoded === undefined) {
      this.emotionLabel = this.emotionBuffer + this.string.flush()
      this.state = State.ExpectCommaOrEnd
      if (this.committed) this.reportEmotion()
    } else if (this.emotionBuffer.length > MAX_EMOTION_UNITS) this.fail('the emotion is too long')
    else this.emotionBuffer += decoded
  }

  private readThought(code: number): void {
    const decoded = this.string.next(code)
    if (decoded === undefined) {
      this.state = State.ExpectCommaOrEnd
      this.reportThought(this.string.flush())
    } else if (this.thoughtBuffer.length < maxThoughtUnits) this.thoughtBuffer += decoded
  }

  private reportThought(rest: string): void {
    const text = (this.thoughtBuffer + rest).slice(0, maxThoughtUnits).trim()
    this.thoughtBuffer = ''
    if (text) this.options.handler.onThought?.(text)
  }

  private skipNested(code: number): void {
    if (this.nestedInString) {
      if (this.nestedEscape) this.nestedEscape = false
      else if (code === 0x5c) this.nestedEscape = true
      else if (code === 0x22) this.nestedInString = false
    } else if (code === 0x22) this.nestedInString = true
    else if (code === 0x7b || code === 0x5b) this.nestedDepth++
    else if ((code === 0x7d || code === 0x5d) && --this.nestedDepth === 0) this.state = State.ExpectCommaOrEnd
  }

  private closeObject(): void {
    this.commit()
    this.reportEmotion()
    this.state = State.AfterObject
  }

  /** The envelope is accepted: what was buffered for a fallback is no longer needed. */
  private commit(): void {
    this.committed = true
    this.raw = ''
    if (this.emotionLabel !== undefined) this.reportEmotion()
  }

  private reportEmotion(): void {
    if (this.emotionReported) return
    this.emotionReported = true
    const label = this.emotionLabel?.trim()
    if (label) this.options.handler.onEmotion(label)
    else this.options.handler.onNoEmotion()
  }

  private reportNoEmotion(): void {
    if (this.emotionReported) return
    this.emotionReported = true
    this.options.handler.onNoEmotion()
  }

  /** Not an envelope at all: plain text with the default emotion (a warning only when JSON was asked for). */
  private usePlain(): void {
    if (this.options.format === 'json') {
      this.options.log('warn', 'reply is not JSON; using the whole output as text with the default emotion')
    }
    this.switchToPlain()
  }

  private fail(reason: string): void {
    if (this.committed) {
      this.options.log('warn', `reply JSON is malformed after its text (${reason}); the rest is kept as text`)
      this.reportEmotion()
      this.state = State.Plain
      this.options.handler.onText(this.currentCharacter())
      return
    }
    const level = this.options.format === 'json' ? 'warn' : 'debug'
    this.options.log(
      level,
      `reply emotion JSON did not parse (${reason}); using it as text with the default emotion`,
    )
    this.emotionLabel = undefined
    this.switchToPlain()
  }

  private currentCharacter(): string {
    return this.currentDelta.slice(this.current, this.current + 1)
  }

  private switchToPlain(): void {
    const raw = this.raw
    this.raw = ''
    this.committed = true
    this.reportNoEmotion()
    this.state = State.Plain
    if (raw) this.options.handler.onText(raw)
  }
}

/** Creates the envelope decoder for one reply. */
export function createReplyEnvelopeDecoder(options: ReplyEnvelopeDecoderOptions): ReplyEnvelopeDecoder {
  return new StreamingEnvelopeDecoder(options)
}
