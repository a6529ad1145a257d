/**
 * Decodes the inside of a JSON string one character at a time, so a value can be shown while it is
 * still streaming: escapes split across chunks, `\uXXXX`, and surrogate pairs written as two escapes
 * that arrive in different chunks all decode the same as when the string arrives whole.
 */

const simpleEscapes: Record<string, string> = {
  '"': '"',
  '\\': '\\',
  '/': '/',
  b: '\b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
}

const REPLACEMENT = '\uFFFD'
const NOT_ESCAPING = -1

export class JsonStringDecoder {
  /** -1: plain text; 0: after a backslash; 1–4: hex digits of a `\u` escape read so far. */
  private escapeStep = NOT_ESCAPING
  private inUnicode = false
  private unicode = 0
  /** A high surrogate waiting for its low half. */
  private pendingHigh = 0

  /** True when the next character is plain text (no escape or surrogate half pending). */
  get idle(): boolean {
    return this.escapeStep === NOT_ESCAPING && this.pendingHigh === 0
  }

  /**
   * Decodes one code unit inside the string. Returns the decoded text ('' while an escape is
   * incomplete), or `undefined` when this unit is the closing quote.
   */
  next(code: number): string | undefined {
    if (this.escapeStep === NOT_ESCAPING) {
      if (code === 0x22) return undefined
      if (code === 0x5c) {
        this.escapeStep = 0
        return ''
      }
      return this.emitUnit(code)
    }
    if (!this.inUnicode) {
      const character = String.fromCharCode(code)
      if (character === 'u') {
        this.inUnicode = true
        this.unicode = 0
        this.escapeStep = 1
        return ''
      }
      this.escapeStep = NOT_ESCAPING
      // An unknown escape such as `\x` keeps the character: models write them, and dropping text is worse.
      return this.settle(simpleEscapes[character] ?? character)
    }
    const digit = Number.parseInt(String.fromCharCode(code), 16)
    if (Number.isNaN(digit)) {
      // A broken `\u` escape: mark it and read the character again as plain text.
      this.inUnicode = false
      this.escapeStep = NOT_ESCAPING
      const marker = this.settle(REPLACEMENT)
      const rest = this.next(code)
      return rest === undefined ? undefined : marker + rest
    }
    this.unicode = this.unicode * 16 + digit
    if (this.escapeStep < 4) {
      this.escapeStep++
      return ''
    }
    this.inUnicode = false
    this.escapeStep = NOT_ESCAPING
    return this.emitUnit(this.unicode)
  }

  /** The string ended (or the stream did): a lone high surrogate becomes U+FFFD. */
  flush(): string {
    const pending = this.pendingHigh ? REPLACEMENT : ''
    this.pendingHigh = 0
    this.escapeStep = NOT_ESCAPING
    this.inUnicode = false
    return pending
  }

  private emitUnit(code: number): string {
    if (code >= 0xd800 && code <= 0xdbff) {
      const before = this.pendingHigh ? REPLACEMENT : ''
      this.pendingHigh = code
      return before
    }
    if (code >= 0xdc00 && code <= 0xdfff) {
      if (!this.pendingHigh) return REPLACEMENT
      const pair = String.fromCharCode(this.pendingHigh, code)
      this.pendingHigh = 0
      return pair
    }
    return this.settle(String.fromCharCode(code))
  }

  private settle(text: string): string {
    if (!this.pendingHigh) return text
    this.pendingHigh = 0
    return REPLACEMENT + text
  }
}
