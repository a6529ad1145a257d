/**
 * A tokenizer-free token estimate that errs high, for budgets that must not be overrun when the
 * model's tokenizer is unknown. Chinese, Japanese and Korean characters count two each (in cl100k a
 * common Han character is one or two tokens and a rare or traditional one two or three; o200k needs
 * fewer), letter runs of other scripts one per four letters, digits one per three, an ASCII symbol
 * one, any other symbol (full-width punctuation: three UTF-8 bytes) two, an emoji three.
 */
const cjkCharacter = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u
const pieces = /(\p{L}+)|(\p{N}+)|(\s+)|(.)/gsu

export function estimateTokens(text: string): number {
  let total = 0
  for (const match of text.matchAll(pieces)) {
    const [, letters, digits, spaces, symbol] = match
    if (letters) {
      let cjk = 0
      let other = 0
      for (const character of letters) {
        if (cjkCharacter.test(character)) cjk++
        else other++
      }
      total += cjk * 2 + Math.ceil(other / 4)
    } else if (digits) {
      total += Math.ceil(digits.length / 3)
    } else if (spaces) {
      // A single space rides with the next word; longer runs (indentation, blank lines) are tokens.
      total += spaces.length > 1 ? 1 : 0
    } else if (symbol) {
      // Byte-level tokenizers split rare multi-byte characters into several tokens.
      const codePoint = symbol.codePointAt(0)!
      total += codePoint > 0xffff ? 3 : codePoint > 0x7f ? 2 : 1
    }
  }
  return Math.ceil(total)
}
