/**
 * Spoken sentences joined back into text: what an interrupted reply is stored as
 * (persist-turn.ts), and what a client's heard text is checked against (accept-heard-text.ts).
 */

const cjk = /[\u3000-\u303f\u3040-\u30ff\u3400-\u9fff\uff00-\uffef]/

/** Joins spoken sentences back into text: no space around CJK, one space between Latin sentences. */
export function joinSentences(sentences: readonly string[]): string {
  let text = ''
  for (const sentence of sentences) {
    if (text && !cjk.test(text.at(-1)!) && !cjk.test(sentence[0] ?? '')) text += ' '
    text += sentence
  }
  return text
}
