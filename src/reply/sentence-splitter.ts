/**
 * Streaming sentence splitter (SPEC R2.4). Text arrives in pieces; every character is looked at once
 * and decisions that need the next character (a run of terminators, closing quotes, `.` before
 * whitespace, `1,000`) are kept as a small state instead of re-reading the buffer. The result does
 * not depend on where the pieces were split, and the cost is linear in the length of the text —
 * except for `releaseAtChunkEnd()`, which trades that for latency: a sentence whose `。！？` ends a
 * model chunk is released at once instead of waiting for the next chunk, and a closer, `～` or
 * another terminator that then arrives leads the next sentence (silent to speech).
 */
import { CharClass, charClassTable, findCloser, isAbbreviation, isLowSurrogate } from './char-classes.js'

export interface SplitSentence {
  /** Trimmed sentence text (before speech filters). */
  text: string
  /** Emotion set by an inline tag before the sentence began; undefined: the reply's base emotion. */
  emotion: string | undefined
}

export interface SentenceSplitterOptions {
  /** Merge sentences shorter than this into the next one (code points; 0: off). */
  minChars?: number
  /** Cut sentences longer than this at a comma (0: off). */
  maxChars?: number
  /** Cut the first sentence at a comma once it has this many characters (0: off). */
  firstClauseChars?: number
  onSentence: (sentence: SplitSentence) => void
}

export interface SentenceSplitter {
  /** Feeds text; complete sentences go to `onSentence`. */
  write(text: string): void
  /** An inline emotion tag at the current position: it applies from the next sentence that starts. */
  setEmotion(emotion: string): void
  /**
   * The text so far is all there is for now (a model chunk ended): a sentence that ends in a full
   * terminator (`。！？!?；;`, not `.`, which may still be `3.14` or `example.com`) with no quote
   * open is released now rather than when the next character confirms it.
   */
  releaseAtChunkEnd(): void
  /** Flushes the rest as the last sentence. */
  end(): void
}

/** How long an open quote or bracket may hold a cut when `max_chars` is off. */
export const QUOTE_HOLD_LIMIT = 200
const MAX_TOKEN_LENGTH = 12
/** Longer tokens are words, not abbreviations (`approx` and `a.b.c.d` are the longest kept). */
const MAX_ABBREVIATION_LENGTH = 8
const MAX_QUOTE_DEPTH = 16

enum Mode {
  Normal = 0,
  /** After 。！？!?；; — more terminators, closers and ～… still belong to the sentence. */
  AfterTerminator = 1,
  /** After a `.` (or a terminator inside a URL) — ends the sentence only before whitespace. */
  AfterDot = 2,
}

/** Where a line starts: a `1.` there is a list marker, not the end of a sentence. */
enum LineStart {
  No = 0,
  Yes = 1,
  Digits = 2,
}

interface EmotionMark {
  unit: number
  emotion: string
}

class StreamingSentenceSplitter implements SentenceSplitter {
  private readonly minChars: number
  private readonly maxChars: number
  private readonly firstClauseChars: number
  private readonly onSentence: (sentence: SplitSentence) => void

  // The current sentence: `sentence` holds what is committed; the caller's loop holds the rest as a run.
  private sentence = ''
  private started = false
  private units = 0
  private points = 0
  private trailingSpacePoints = 0
  private sentenceEmotion: string | undefined
  private commaUnits: number[] = []
  private commaPoints: number[] = []
  private heldUnit = -1
  private overLimit = false
  private marks: EmotionMark[] = []
  private emitted = 0

  // What the last characters were, kept as scalars so nothing is re-read.
  private mode: Mode = Mode.Normal
  private pendingComma = false
  private pendingCommaNumeric = false
  private pendingCommaUnit = 0
  private pendingCommaPoints = 0
  private previous = 0
  private beforePrevious = 0
  /** The run of letters and dots before a `.` (`U.S`, `e.g`), as code units; -1: too long to matter. */
  private readonly token = new Uint16Array(MAX_TOKEN_LENGTH)
  private tokenLength = 0
  private lineStart: LineStart = LineStart.Yes
  private inUrl = false
  private quoteStack: number[] = []
  private emotion: string | undefined
  /** A sentence was released at a chunk end: closers, `～` and terminators that follow lead the next one. */
  private releasedEarly = false

  constructor(options: SentenceSplitterOptions) {
    this.minChars = Math.max(0, options.minChars ?? 0)
    this.maxChars = Math.max(0, options.maxChars ?? 0)
    this.firstClauseChars = Math.max(0, options.firstClauseChars ?? 0)
    this.onSentence = options.onSentence
  }

  setEmotion(emotion: string): void {
    this.emotion = emotion
    if (this.started) this.marks.push({ unit: this.units, emotion })
  }

  write(text: string): void {
    let runStart = this.started ? 0 : -1
    const length = text.length
    for (let index = 0; index < length; index++) {
      const code = text.charCodeAt(index)
      const charClass = charClassTable[code]!

      if (this.pendingComma && this.resolveComma(charClass)) {
        this.commitRun(text, runStart, index)
        this.cut()
        runStart = -1
      }

      if (this.mode !== Mode.Normal) {
        if (this.continuesRun(code, charClass)) {
          this.appendCounted(code, charClass)
          this.remember(code)
          continue
        }
        const confirmed =
          this.mode === Mode.AfterTerminator ||
          charClass === CharClass.Whitespace ||
          charClass === CharClass.Newline
        this.mode = Mode.Normal
        if (confirmed && this.confirmTerminator()) {
          this.commitRun(text, runStart, index)
          this.cut()
          runStart = -1
        }
      }

      if (this.releasedEarly) {
        if (isSentenceTail(charClass)) {
          if (!this.started) {
            this.started = true
            this.sentenceEmotion = this.emotion
            runStart = index
          }
          this.appendCounted(code, charClass)
          this.remember(code)
          continue
        }
        this.releasedEarly = false
      }

      if (charClass === CharClass.Newline) {
        this.quoteStack.length = 0
        this.inUrl = false
        this.tokenLength = 0
        if (this.started && this.trimmedPoints() >= this.minChars) {
          this.commitRun(text, runStart, index)
          this.cut()
          runStart = -1
        } else if (this.started) {
          this.appendCounted(code, CharClass.Whitespace)
        }
        this.lineStart = LineStart.Yes
        this.remember(code)
        continue
      }

      if (!this.started) {
        if (charClass === CharClass.Whitespace) {
          this.tokenLength = 0
          this.inUrl = false
          this.remember(code)
          continue
        }
        this.started = true
        this.sentenceEmotion = this.emotion
        runStart = index
      }
      this.appendCounted(code, charClass)
      this.classify(code, charClass)
      this.remember(code)

      if (!this.overLimit && this.points > this.currentLimit() && this.releaseLimit(text, runStart, index)) {
        runStart = this.started ? index + 1 : -1
      }
    }
    this.commitRun(text, runStart, length)
  }

  releaseAtChunkEnd(): void {
    if (this.mode !== Mode.AfterTerminator || this.inUrl || !this.confirmTerminator()) return
    this.mode = Mode.Normal
    this.cut()
    this.releasedEarly = true
  }

  end(): void {
    this.releasedEarly = false
    if (this.started) this.emit(this.sentence)
    this.resetSentence()
    this.mode = Mode.Normal
    this.pendingComma = false
    this.quoteStack.length = 0
  }

  private commitRun(text: string, runStart: number, end: number): void {
    if (runStart >= 0 && end > runStart) this.sentence += text.slice(runStart, end)
  }

  private remember(code: number): void {
    this.beforePrevious = this.previous
    this.previous = code
  }

  private appendCounted(code: number, charClass: number): void {
    this.units++
    if (isLowSurrogate(code)) return
    this.points++
    this.trailingSpacePoints = charClass === CharClass.Whitespace ? this.trailingSpacePoints + 1 : 0
  }

  private trimmedPoints(): number {
    return this.points - this.trailingSpacePoints
  }

  /** Characters after a terminator that stay with its sentence. */
  private continuesRun(code: number, charClass: number): boolean {
    switch (charClass) {
      case CharClass.Terminator:
        if (code > 0x7f) this.inUrl = false
        if (this.mode === Mode.AfterDot && !this.inUrl) this.mode = Mode.AfterTerminator
        return true
      case CharClass.Trailing:
        return true
      case CharClass.Closer:
        this.closeQuote(code)
        return true
      case CharClass.StraightQuote:
        if (!this.quoteStack.includes(code)) return false
        this.closeQuote(code)
        return true
      default:
        return false
    }
  }

  /** Updates the look-behind state for a character appended in normal mode. */
  private classify(code: number, charClass: number): void {
    switch (charClass) {
      case CharClass.Letter:
        this.extendToken(code)
        this.lineStart = LineStart.No
        return
      case CharClass.Digit:
        this.tokenLength = 0
        if (this.lineStart !== LineStart.No) this.lineStart = LineStart.Digits
        return
      case CharClass.Dot:
        this.classifyDot()
        return
      case CharClass.Terminator:
        // ASCII `?!;` can be part of a URL (`?q=1`); a full-width `。！？` never is, so it ends the URL.
        if (code > 0x7f) this.inUrl = false
        this.mode = this.inUrl ? Mode.AfterDot : Mode.AfterTerminator
        break
      case CharClass.Comma:
        if (!this.inUrl) {
          this.pendingComma = true
          this.pendingCommaNumeric = code === 0x2c && charClassTable[this.previous] === CharClass.Digit
          this.pendingCommaUnit = this.units
          this.pendingCommaPoints = this.points
        }
        break
      case CharClass.Opener:
        if (this.quoteStack.length < MAX_QUOTE_DEPTH) this.quoteStack.push(findCloser(code))
        this.inUrl = false
        break
      case CharClass.Closer:
        this.closeQuote(code)
        this.inUrl = false
        break
      case CharClass.StraightQuote:
        if (this.quoteStack.includes(code)) this.closeQuote(code)
        else if (this.quoteStack.length < MAX_QUOTE_DEPTH) this.quoteStack.push(code)
        this.inUrl = false
        break
      case CharClass.Whitespace:
        this.inUrl = false
        this.tokenLength = 0
        if (this.lineStart === LineStart.Yes) return
        break
      default:
        if (code > 0x7f) this.inUrl = false
        else if (code === 0x2f && this.previous === 0x2f && this.beforePrevious === 0x3a) this.inUrl = true
    }
    this.tokenLength = 0
    this.lineStart = LineStart.No
  }

  private classifyDot(): void {
    const ellipsis = this.previous === 0x2e || this.previous === 0x2026
    const listMarker = this.lineStart === LineStart.Digits
    const abbreviation =
      this.tokenLength > 0 && this.tokenLength <= MAX_ABBREVIATION_LENGTH && isAbbreviation(this.readToken())
    if (!ellipsis && !listMarker && !abbreviation) this.mode = Mode.AfterDot
    if (this.tokenLength !== 0) this.extendToken(0x2e)
    this.lineStart = LineStart.No
  }

  /** Kept as code units so that reading English costs no string per letter; long words are no abbreviation. */
  private extendToken(code: number): void {
    if (this.tokenLength < 0) return
    if (this.tokenLength === MAX_TOKEN_LENGTH) this.tokenLength = -1
    else this.token[this.tokenLength++] = code
  }

  private readToken(): string {
    let token = ''
    for (let index = 0; index < this.tokenLength; index++) token += String.fromCharCode(this.token[index]!)
    return token
  }

  private closeQuote(code: number): void {
    const position = this.quoteStack.lastIndexOf(code)
    if (position >= 0) this.quoteStack.length = position
  }

  /** A terminator run ended: cut here unless a quote holds it or the sentence is too short. */
  private confirmTerminator(): boolean {
    if (this.trimmedPoints() < this.minChars) return false
    if (this.quoteStack.length > 0) {
      this.heldUnit = this.units
      return false
    }
    return true
  }

  /** The character after a comma decides whether it is a clause break (not `1,000`). */
  private resolveComma(charClass: number): boolean {
    this.pendingComma = false
    if (this.pendingCommaNumeric && charClass === CharClass.Digit) return false
    const points = this.pendingCommaPoints
    this.commaUnits.push(this.pendingCommaUnit)
    this.commaPoints.push(points)
    if (points < this.minChars) return false
    if (this.overLimit) return true
    return (
      this.firstClauseChars > 0 &&
      this.emitted === 0 &&
      points >= this.firstClauseChars &&
      this.quoteStack.length === 0
    )
  }

  private currentLimit(): number {
    if (this.maxChars > 0) return this.maxChars
    return this.quoteStack.length > 0 ? QUOTE_HOLD_LIMIT : Number.POSITIVE_INFINITY
  }

  /**
   * The sentence outgrew `max_chars` (or an open quote held it past its limit): cut at the last held
   * terminator or the last comma within the limit, and replay the rest as the next sentence. The
   * rest is shorter than the limit, so the replay keeps the whole pass linear.
   */
  private releaseLimit(text: string, runStart: number, index: number): boolean {
    this.quoteStack.length = 0
    let cutUnit = this.heldUnit
    if (this.maxChars > 0) {
      for (let position = this.commaUnits.length - 1; position >= 0; position--) {
        const points = this.commaPoints[position]!
        if (points <= this.maxChars && points >= this.minChars) {
          cutUnit = Math.max(cutUnit, this.commaUnits[position]!)
          break
        }
      }
    }
    if (cutUnit <= 0 || cutUnit >= this.units) {
      if (this.maxChars > 0) this.overLimit = true
      return false
    }
    this.commitRun(text, runStart, index + 1)
    const whole = this.sentence
    const head = whole.slice(0, cutUnit)
    const rest = whole.slice(cutUnit)
    const restMarks = this.marks.filter((mark) => mark.unit > cutUnit)
    const emotionAtCut = this.marks.findLast((mark) => mark.unit <= cutUnit)?.emotion ?? this.sentenceEmotion
    this.sentence = head
    this.cut()
    this.mode = Mode.Normal
    this.pendingComma = false
    this.tokenLength = 0
    this.inUrl = false
    this.lineStart = LineStart.No
    this.previous = head.charCodeAt(head.length - 1)
    this.emotion = emotionAtCut
    let offset = 0
    for (const mark of restMarks) {
      this.write(rest.slice(offset, mark.unit - cutUnit))
      this.setEmotion(mark.emotion)
      offset = mark.unit - cutUnit
    }
    this.write(rest.slice(offset))
    return true
  }

  private cut(): void {
    this.emit(this.sentence)
    this.resetSentence()
  }

  private emit(raw: string): void {
    const text = raw.trimEnd()
    if (text === '') return
    this.emitted++
    this.onSentence({ text, emotion: this.sentenceEmotion })
  }

  private resetSentence(): void {
    this.sentence = ''
    this.started = false
    this.units = 0
    this.points = 0
    this.trailingSpacePoints = 0
    this.sentenceEmotion = undefined
    this.commaUnits = []
    this.commaPoints = []
    this.heldUnit = -1
    this.overLimit = false
    this.marks = []
  }
}

/** What may follow a terminator and still belong to its sentence. */
function isSentenceTail(charClass: number): boolean {
  return (
    charClass === CharClass.Terminator || charClass === CharClass.Trailing || charClass === CharClass.Closer
  )
}

/** Creates a streaming sentence splitter. */
export function createSentenceSplitter(options: SentenceSplitterOptions): SentenceSplitter {
  return new StreamingSentenceSplitter(options)
}
