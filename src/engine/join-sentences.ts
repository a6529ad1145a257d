/**
 * Spoken sentences joined back into text: what an interrupted reply is stored as
 * (persist-turn.ts), and what a client's heard text is checked against (accept-heard-text.ts).
 */

const cjk = /[\u3000-\u303f\u3040-\u30ff\u3400-\u9fff\uff00-\uffef]/

/**
 * Joins spoken sentences back into text: no space around CJK, one space between Latin sentences.
 * The last character is kept aside, not read off the text being built: reading a string built by
 * `+=` flattens it, so a long reply (thousands of sentences) cost time quadratic in its length and
 * held the event loop for seconds when its turn was stored.
 */
export function joinSentences(sentences: readonly string[]): string {
  const parts: string[] = []
  let last: string | undefined
  for (const sentence of sentences) {
    if (last !== undefined && !cjk.test(last) && !cjk.test(sentence[0] ?? '')) {
      parts.push(' ')
      last = ' '
    }
    if (sentence !== '') {
      parts.push(sentence)
      last = sentence.at(-1)
    }
  }
  return parts.join('')
}
