/**
 * The one token estimate (context limits, storage, usage, history resets) for models whose
 * tokenizer we do not ship; OpenAI models are counted exactly (`context/tokens`). It must not
 * undercount: a context that is estimated too small overflows the model. Chinese, Japanese and
 * Korean characters count 1.4 tokens each: o200k gives about 0.8 for common text and up to 1.4 for
 * rare and traditional characters, DeepSeek and Qwen 0.6-0.8, Claude 1-1.3 (cl100k, up to 2, is
 * only used for older OpenAI models, which are counted exactly). Latin words count one token per 4
 * letters started, which is at or above what o200k/cl100k give for English prose (about 1.3 tokens
 * per word); digits one per 3; every other visible symbol one.
 */
/** Han, kana, hangul and their full-width punctuation. */
function isCjk(code: number): boolean {
  return (
    (code >= 0x2e80 && code <= 0x9fff) ||
    (code >= 0xac00 && code <= 0xd7af) ||
    (code >= 0xf900 && code <= 0xfaff) ||
    (code >= 0xff00 && code <= 0xffef) ||
    (code >= 0x20000 && code <= 0x3ffff)
  )
}

/** Tokens per Chinese, Japanese or Korean character. */
const cjkTokens = 1.4

export function estimateTokens(text: string): number {
  let tokens = 0
  let cjkCharacters = 0
  let wordLength = 0
  let digitLength = 0
  // Indexes rather than `for…of`, and runs closed inline rather than by a closure: this runs over
  // every character of every context. A letter run and a digit run are never open at once.
  const length = text.length
  for (let index = 0; index < length; index++) {
    let code = text.charCodeAt(index)
    if (code >= 0xd800 && code <= 0xdbff && index + 1 < length) {
      const low = text.charCodeAt(index + 1)
      if (low >= 0xdc00 && low <= 0xdfff) {
        code = (code - 0xd800) * 0x400 + (low - 0xdc00) + 0x10000
        index++
      }
    }
    if ((code >= 97 && code <= 122) || (code >= 65 && code <= 90)) {
      if (digitLength > 0) {
        tokens += Math.ceil(digitLength / 3)
        digitLength = 0
      }
      wordLength++
    } else if (code >= 48 && code <= 57) {
      if (wordLength > 0) {
        tokens += Math.ceil(wordLength / 4)
        wordLength = 0
      }
      digitLength++
    } else {
      if (wordLength > 0) {
        tokens += Math.ceil(wordLength / 4)
        wordLength = 0
      } else if (digitLength > 0) {
        tokens += Math.ceil(digitLength / 3)
        digitLength = 0
      }
      if (code === 32 || code === 10 || code === 9 || code === 13) continue
      if (isCjk(code)) cjkCharacters++
      // Emoji and other astral symbols take several byte-level tokens; other symbols one.
      else tokens += code > 0xffff ? 2 : 1
    }
  }
  if (wordLength > 0) tokens += Math.ceil(wordLength / 4)
  if (digitLength > 0) tokens += Math.ceil(digitLength / 3)
  return tokens + Math.ceil(cjkCharacters * cjkTokens)
}
