/**
 * The naive way to parse a streaming reply, kept as the benchmark's baseline: on every chunk, append
 * to a buffer, pull the text out of the whole buffer with a regex (json), split the whole text into
 * sentences with a regex, and emit the sentences not emitted yet. Each chunk costs time proportional
 * to everything received so far, so a reply costs quadratic time.
 */

const SENTENCE = /[^。！？!?；;\n]*(?:[。！？!?；;\n]+[」』”’）)\]～…]*|$)/g
const JSON_TEXT = /"text"\s*:\s*"((?:[^"\\]|\\.)*)/
const JSON_EMOTION = /"emotion"\s*:\s*"((?:[^"\\]|\\.)*)"/

export interface NaiveReplyParser {
  push(delta: string): number
  end(): number
}

function decodeJsonText(raw: string): string {
  try {
    return JSON.parse(`"${raw.replace(/\\$/, '')}"`) as string
  } catch {
    return raw
  }
}

/** Returns how many sentences each call completed (so the work cannot be optimised away). */
export function createNaiveReplyParser(format: 'json' | 'plain'): NaiveReplyParser {
  let buffer = ''
  let emitted = 0
  let emotion = '平静'
  const sentencesOf = (text: string) =>
    (text.match(SENTENCE) ?? []).map((part) => part.trim()).filter(Boolean)
  const textOf = () => {
    if (format === 'plain') return buffer
    const match = JSON_EMOTION.exec(buffer)
    if (match) emotion = match[1]!
    const text = JSON_TEXT.exec(buffer)
    return text ? decodeJsonText(text[1]!) : ''
  }
  return {
    push(delta) {
      buffer += delta
      const sentences = sentencesOf(textOf())
      // The last one may still grow; everything before it is complete.
      const complete = Math.max(emitted, sentences.length - 1)
      const count = complete - emitted
      emitted = complete
      return count + (emotion ? 0 : 1)
    },
    end() {
      const count = sentencesOf(textOf()).length - emitted
      emitted += count
      return count
    },
  }
}
