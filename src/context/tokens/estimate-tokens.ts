/**
 * A token estimate for models whose tokenizer we do not ship. It must not undercount: a context
 * that is estimated too small overflows the model. Chinese, Japanese and Korean characters count
 * one token each (the OpenAI tokenizers give 0.6-1.3 per Han character, DeepSeek and Qwen about
 * 0.6-0.8, Claude about 1-1.3); Latin words count one token per 4 letters started, which is at or
 * above what o200k/cl100k give for English prose (about 1.3 tokens per word); digits one per 3;
 * every other visible symbol one.
 */
const cjk = /[\u2e80-\u9fff\uac00-\ud7af\uf900-\ufaff\uff00-\uffef\u3000-\u303f]/u

export function estimateTokens(text: string): number {
  let tokens = 0
  let wordLength = 0
  let digitLength = 0
  const flushRuns = () => {
    if (wordLength > 0) tokens += Math.ceil(wordLength / 4)
    if (digitLength > 0) tokens += Math.ceil(digitLength / 3)
    wordLength = 0
    digitLength = 0
  }
  for (const character of text) {
    const code = character.codePointAt(0)!
    if ((code >= 97 && code <= 122) || (code >= 65 && code <= 90)) {
      if (digitLength > 0) flushRuns()
      wordLength++
    } else if (code >= 48 && code <= 57) {
      if (wordLength > 0) flushRuns()
      digitLength++
    } else {
      flushRuns()
      if (code === 32 || code === 10 || code === 9 || code === 13) continue
      // Han and other wide characters, emoji and punctuation: one token each at least.
      tokens += code > 0xffff && !cjk.test(character) ? 2 : 1
    }
  }
  flushRuns()
  return tokens
}
