/**
 * Inline emotion tags inside the reply text (SPEC R2.3): `[开心]` with a configured label or alias,
 * and AIRI's `<|ACT:{"emotion":{"name":"happy","intensity":1}}|>` (each read by its grammar:
 * bracket-tag-grammar.ts, act-token-grammar.ts, which the `/v1` emotion writer writes with). A tag is removed from display and speech and changes the emotion
 * of what follows. A possible tag is held only while it can still become one (a few characters), so
 * display text is barely delayed; anything that turns out not to be a tag is passed on unchanged.
 */
import { maxActTokenUnits, readActToken } from './act-token-grammar.js'
import { maxBracketNameUnits, readBracketTag } from './bracket-tag-grammar.js'
import type { EmotionResolver } from './emotion-resolver.js'

export interface InlineTagExtractorOptions {
  resolver: EmotionResolver
  /** Text with the tags taken out. */
  onText(text: string): void
  /** A tag: the emotion (resolved) at this point of the text. */
  onEmotion(emotion: string): void
}

export interface InlineTagExtractor {
  write(text: string): void
  end(): void
}

class StreamingTagExtractor implements InlineTagExtractor {
  /** The possible tag being read, starting with `[` or `<`; '' when none. */
  private candidate = ''

  constructor(private readonly options: InlineTagExtractorOptions) {}

  write(text: string): void {
    let start = 0
    let index = 0
    const length = text.length
    while (index < length) {
      const code = text.charCodeAt(index)
      if (this.candidate === '') {
        if (code === 0x5b || code === 0x3c) {
          if (index > start) this.options.onText(text.slice(start, index))
          this.candidate = text[index]!
          start = index + 1
        }
        index++
        continue
      }
      if (this.extend(code, text[index]!)) {
        start = index + 1
        index++
      } else {
        // Not a tag after all: the held text goes out and this character is read again from scratch.
        this.release()
        start = index
      }
    }
    if (this.candidate === '' && start < length) this.options.onText(text.slice(start))
  }

  end(): void {
    this.release()
  }

  /** Adds a character to the candidate; false when the candidate can no longer be a tag. */
  private extend(code: number, character: string): boolean {
    const candidate = this.candidate
    if (candidate[0] === '[') {
      if (code === 0x5d) {
        this.finishLabel(candidate.slice(1))
        return true
      }
      if (code === 0x5b || code === 0x0a || candidate.length > maxBracketNameUnits) return false
      this.candidate += character
      return true
    }
    if (candidate.length === 1) {
      if (code !== 0x7c) return false
      this.candidate += character
      return true
    }
    if (candidate.length >= maxActTokenUnits) return false
    this.candidate += character
    if (code === 0x3e && candidate.endsWith('|')) this.finishAct()
    return true
  }

  private finishLabel(label: string): void {
    const name = readBracketTag(`[${label}]`)
    const emotion = name === undefined ? undefined : this.options.resolver.find(name)
    if (emotion === undefined) {
      if (label.trim()) this.options.resolver.reportUnknown(label.trim(), 'debug')
      this.options.onText(`[${label}]`)
    } else this.options.onEmotion(emotion)
    this.candidate = ''
  }

  private finishAct(): void {
    const tag = this.candidate
    this.candidate = ''
    const emotion = readActToken(tag)?.name.trim()
    if (!emotion) this.options.onText(tag)
    else this.options.onEmotion(this.options.resolver.resolve(emotion, 'warn'))
  }

  private release(): void {
    if (this.candidate) this.options.onText(this.candidate)
    this.candidate = ''
  }
}

/** Creates the inline tag extractor of one reply. */
export function createInlineTagExtractor(options: InlineTagExtractorOptions): InlineTagExtractor {
  return new StreamingTagExtractor(options)
}
