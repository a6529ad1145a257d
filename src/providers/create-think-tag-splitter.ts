/**
 * Splits streamed content that carries inline `<think>…</think>` (some local models put their
 * reasoning there) into spoken text and reasoning. A tag may arrive split across chunks (`<th` +
 * `ink>`), so a trailing piece that could still become a tag is held back until the next chunk.
 */
export interface ThinkTagSplitter {
  /** Splits one content delta; calls `onText`/`onReasoning` with the parts (never empty strings). */
  push(content: string): void
  /** Releases held-back characters at the end of the stream. */
  end(): void
}

const openTag = '<think>'
const closeTag = '</think>'

/** Length of the longest suffix of `text` that is a proper prefix of `tag`. */
function partialTagLength(text: string, tag: string): number {
  const longest = Math.min(tag.length - 1, text.length)
  for (let length = longest; length > 0; length--) {
    if (tag.startsWith(text.slice(text.length - length))) return length
  }
  return 0
}

export function createThinkTagSplitter(
  onText: (text: string) => void,
  onReasoning: (text: string) => void,
): ThinkTagSplitter {
  let inside = false
  let held = ''
  // After `</think>` the line breaks a model writes are layout, not speech, even in the next chunk.
  let afterClose = false

  const emit = (text: string) => {
    if (text.length === 0) return
    if (inside) onReasoning(text)
    else onText(text)
  }

  return {
    push(content) {
      if (afterClose) {
        content = content.replace(/^\n+/, '')
        if (content.length === 0) return
        afterClose = false
      }
      // Fast path for the common case: plain text, nothing held, no tag can start here.
      if (!inside && held.length === 0 && content.indexOf('<') === -1) {
        if (content.length > 0) onText(content)
        return
      }
      let rest = held + content
      held = ''
      while (rest.length > 0) {
        const tag = inside ? closeTag : openTag
        const at = rest.indexOf(tag)
        if (at !== -1) {
          emit(rest.slice(0, at))
          inside = !inside
          rest = rest.slice(at + tag.length)
          if (!inside) {
            rest = rest.replace(/^\n+/, '')
            afterClose = rest.length === 0
          }
          continue
        }
        const partial = partialTagLength(rest, tag)
        emit(rest.slice(0, rest.length - partial))
        held = rest.slice(rest.length - partial)
        break
      }
    },
    end() {
      const rest = held
      held = ''
      emit(rest)
    },
  }
}
