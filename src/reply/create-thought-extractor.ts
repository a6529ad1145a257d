/**
 * Inner thought (`character.thoughts`): a reply may open with `<thought>…</thought>`, the
 * character's thought before its line (several in a row: each is a thought). The reply parser runs
 * one extractor on the model's raw output, before the envelope, so the marker works in every
 * format, and one on the reply's text after it (after the emotion line, inside the JSON `text`);
 * the JSON format's `thought` field is read by the envelope decoder. An extractor holds text only
 * while the reply so far could still open a thought (leading whitespace, a prefix of `<thought>`);
 * once a thought is open, nothing of it reaches `onText`, even when the reply ends before
 * `</thought>`. Every character is read once; after the thoughts (or once there is none) text
 * passes straight through.
 */

export const thoughtOpenTag = '<thought>'
export const thoughtCloseTag = '</thought>'

/** A thought is short; past this many code units the rest is dropped (still never spoken). */
export const maxThoughtUnits = 4000

export interface ThoughtExtractorOptions {
  /** The reply without its thought. */
  onText(text: string): void
  /** The thought, once complete (trimmed, never empty). */
  onThought(text: string): void
}

export interface ThoughtExtractor {
  write(text: string): void
  /** The reply ended: a thought still open is a thought; held text that opened none is text. */
  end(): void
}

enum Phase {
  /** Only whitespace so far. */
  Leading,
  /** Inside the opening tag: `matched` characters of it read. */
  Opening,
  /** Inside the thought: `matched` characters of the closing tag read. */
  Thinking,
  /** Right after `</thought>`: line breaks and spaces there are layout, not speech; another may open. */
  AfterThought,
  /** Text passes straight through. */
  Passing,
}

const whitespace = /\s/

export function createThoughtExtractor(options: ThoughtExtractorOptions): ThoughtExtractor {
  let phase = Phase.Leading
  let matched = 0
  let held = ''
  let thought = ''

  const addToThought = (text: string) => {
    if (thought.length < maxThoughtUnits) thought += text.slice(0, maxThoughtUnits - thought.length)
  }

  const finishThought = () => {
    const text = thought.trim()
    thought = ''
    if (text) options.onThought(text)
  }

  /** Releases what was held and the rest of `text` from `index` on as text. */
  const pass = (text: string, index: number) => {
    phase = Phase.Passing
    const released = held + text.slice(index)
    held = ''
    if (released) options.onText(released)
  }

  return {
    write(text) {
      if (phase === Phase.Passing) {
        if (text) options.onText(text)
        return
      }
      let start = 0
      for (let index = 0; index < text.length; index++) {
        const character = text[index]!
        if (phase === Phase.Leading || phase === Phase.AfterThought) {
          if (whitespace.test(character)) {
            // Space after a thought is layout; before any, it is the reply's own if no thought comes.
            if (phase === Phase.Leading) held += character
            continue
          }
          // The first character that is no space starts a tag (another thought may follow one),
          // or rules it out.
          phase = Phase.Opening
          matched = 0
        }
        switch (phase) {
          case Phase.Opening:
            if (character !== thoughtOpenTag[matched]) {
              pass(text, index)
              return
            }
            held += character
            matched++
            if (matched === thoughtOpenTag.length) {
              phase = Phase.Thinking
              matched = 0
              held = ''
              start = index + 1
            }
            continue
          case Phase.Thinking:
            if (character === thoughtCloseTag[matched]) {
              matched++
              if (matched === thoughtCloseTag.length) {
                // The tag's characters before this one that sit in this piece are not thought.
                addToThought(text.slice(start, Math.max(start, index + 1 - thoughtCloseTag.length)))
                finishThought()
                phase = Phase.AfterThought
                matched = 0
              }
              continue
            }
            if (matched > 0) {
              // A false start of the closing tag: the part read in earlier pieces is thought too.
              const fromEarlier = Math.max(0, matched - (index - start))
              if (fromEarlier > 0) addToThought(thoughtCloseTag.slice(0, fromEarlier))
              matched = character === thoughtCloseTag[0] ? 1 : 0
            }
            continue
        }
      }
      // The piece ended inside the thought: its text so far, minus a possible start of the closing tag.
      if (phase === Phase.Thinking) {
        const end = Math.max(start, text.length - matched)
        addToThought(text.slice(start, end))
      }
    },
    end() {
      if (phase === Phase.Thinking) {
        addToThought(thoughtCloseTag.slice(0, matched))
        finishThought()
      } else if (phase === Phase.Leading || phase === Phase.Opening) {
        if (held) options.onText(held)
      }
      held = ''
      phase = Phase.Passing
    },
  }
}
