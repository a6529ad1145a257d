/**
 * Which of the languages charpipe writes its own words in a text is in: CJK script (Han, kana,
 * Hangul) counts as `zh`, Latin letters as `en`. A CJK character carries about a word, so the text is
 * `zh` when it has at least as many CJK characters as Latin words: a Chinese persona with a few
 * English names stays Chinese, an English card naming one Chinese place stays English.
 */
export type Language = 'zh' | 'en'

const cjkPattern = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/gu
const latinWordPattern = /\p{Script=Latin}+/gu

/** The text's language, or undefined when it has neither CJK characters nor Latin words. */
export function detectTextLanguage(text: string): Language | undefined {
  const cjk = text.match(cjkPattern)?.length ?? 0
  const latinWords = text.match(latinWordPattern)?.length ?? 0
  if (cjk === 0 && latinWords === 0) return undefined
  return cjk >= latinWords ? 'zh' : 'en'
}
