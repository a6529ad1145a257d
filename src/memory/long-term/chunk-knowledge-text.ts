/**
 * Splits a text or Markdown document into retrieval chunks: sections by heading, paragraphs within
 * a section packed up to `maxTokens`, and each chunk starting with the last paragraph of the one
 * before it (the overlap) so a fact split across a boundary is still found whole. Every chunk
 * carries its heading path ("Setup > Linux"). Tokens are the linear estimate, never a BPE
 * tokenizer, whose cost is quadratic in one unbroken run of text.
 *
 * `generateKnowledgeChunks` hands out one chunk at a time, and the work between two chunks is
 * bounded whatever the text (lines are read one by one, a long paragraph is cut sentence by
 * sentence, a long sentence piece by piece), so a caller can pause between chunks and a document of
 * megabytes never holds the event loop for long (`prepareKnowledgeRows`).
 */
import { estimateTokens as countTokens } from '../../shared/estimate-tokens.js'

export interface KnowledgeChunk {
  text: string
  /** Headings above the chunk, outermost first. */
  headings: string[]
}

export interface ChunkKnowledgeTextOptions {
  /** Largest chunk, in tokens. @default 300 */
  maxTokens?: number
  /** Largest overlap carried into the next chunk, in tokens. @default 60 */
  overlapTokens?: number
}

/** One paragraph and the headings above it; a new `headings` array starts a new section. */
interface Paragraph {
  headings: string[]
  text: string
}

/** A paragraph is handed out at this length even without a blank line, so no step reads on for long. */
const longestParagraphChars = 65_536

export function chunkKnowledgeText(text: string, options: ChunkKnowledgeTextOptions = {}): KnowledgeChunk[] {
  return [...generateKnowledgeChunks(text, options)]
}

export function* generateKnowledgeChunks(
  text: string,
  options: ChunkKnowledgeTextOptions = {},
): Generator<KnowledgeChunk> {
  const maxTokens = options.maxTokens ?? 300
  const overlapTokens = options.overlapTokens ?? 60
  let headings: string[] | undefined
  let current: string[] = []
  let currentTokens = 0
  let fresh = 0
  for (const paragraph of readParagraphs(text)) {
    if (paragraph.headings !== headings) {
      // A new section: what is left of the previous one is its last chunk, with no overlap.
      if (fresh > 0 && headings) yield { text: current.join('\n\n'), headings }
      headings = paragraph.headings
      current = []
      currentTokens = 0
      fresh = 0
    }
    for (const piece of splitLongParagraph(paragraph.text, maxTokens)) {
      const tokens = countTokens(piece)
      if (current.length && currentTokens + tokens > maxTokens) {
        yield { text: current.join('\n\n'), headings }
        const last = current[current.length - 1] as string
        const lastTokens = countTokens(last)
        const carry = lastTokens <= overlapTokens && lastTokens + tokens <= maxTokens
        current = carry ? [last] : []
        currentTokens = carry ? lastTokens : 0
        fresh = 0
      }
      current.push(piece)
      currentTokens += tokens
      fresh++
    }
  }
  if (fresh > 0 && headings) yield { text: current.join('\n\n'), headings }
}

/** The lines of `text` one at a time (`\n`, `\r\n` or `\r`), without splitting the whole text first. */
function* readLines(text: string): Generator<string> {
  const length = text.length
  // The next line feed and carriage return, each searched for again only once it is passed.
  let nextLf = -1
  let nextCr = -1
  for (let start = 0; start <= length; ) {
    if (nextLf < start) nextLf = text.indexOf('\n', start)
    if (nextCr < start) nextCr = text.indexOf('\r', start)
    if (nextLf < 0) nextLf = length
    if (nextCr < 0) nextCr = length
    const end = Math.min(nextLf, nextCr)
    yield text.slice(start, end)
    if (end >= length) return
    start = end === nextCr && nextLf === end + 1 ? end + 2 : end + 1
  }
}

/** Paragraphs with the headings above them, one at a time. */
function* readParagraphs(text: string): Generator<Paragraph> {
  const path: { level: number; title: string }[] = []
  let headings: string[] = []
  let lines: string[] = []
  let size = 0
  let inFence = false
  const take = (): Paragraph | undefined => {
    const joined = lines.join('\n').trim()
    lines = []
    size = 0
    return joined ? { headings, text: joined } : undefined
  }
  for (const line of readLines(text)) {
    if (/^\s*(```|~~~)/.test(line)) inFence = !inFence
    const heading = inFence ? null : /^(#{1,6})\s+(.+?)\s*#*\s*$/.exec(line)
    if (heading) {
      const paragraph = take()
      if (paragraph) yield paragraph
      const level = (heading[1] as string).length
      while (path.length && (path[path.length - 1] as { level: number }).level >= level) path.pop()
      path.push({ level, title: heading[2] as string })
      headings = path.map((entry) => entry.title)
    } else if (!inFence && line.trim() === '') {
      const paragraph = take()
      if (paragraph) yield paragraph
    } else {
      lines.push(line)
      size += line.length + 1
      if (size >= longestParagraphChars) {
        const paragraph = take()
        if (paragraph) yield paragraph
      }
    }
  }
  const paragraph = take()
  if (paragraph) yield paragraph
}

/** A paragraph over the limit is cut at sentence ends, and a sentence over it at the limit. */
function* splitLongParagraph(paragraph: string, maxTokens: number): Generator<string> {
  if (countTokens(paragraph) <= maxTokens) {
    yield paragraph
    return
  }
  const sentencePattern = /[^。！？.!?\n]+[。！？.!?]*\s*/gu
  let current = ''
  let found = false
  for (let match = sentencePattern.exec(paragraph); match; match = sentencePattern.exec(paragraph)) {
    found = true
    const sentence = match[0]
    if (current && countTokens(current + sentence) > maxTokens) {
      yield current.trim()
      current = ''
    }
    if (countTokens(sentence) > maxTokens) {
      yield* cutByCharacters(sentence, maxTokens)
      continue
    }
    current += sentence
  }
  if (!found) yield* cutByCharacters(paragraph, maxTokens)
  if (current.trim()) yield current.trim()
}

/** Pieces of at most `maxTokens`, cut between code points, without copying the text per character. */
function* cutByCharacters(text: string, maxTokens: number): Generator<string> {
  let size = Math.max(1, Math.floor((text.length * maxTokens) / Math.max(1, countTokens(text))))
  for (let start = 0; start < text.length; ) {
    let end = codePointBoundary(text, Math.min(text.length, start + size))
    let piece = text.slice(start, end)
    while (countTokens(piece) > maxTokens && size > 1) {
      size = Math.max(1, Math.floor(size * 0.8))
      end = codePointBoundary(text, Math.min(text.length, start + size))
      piece = text.slice(start, end)
    }
    // A single code point is never cut, even when it alone is over the limit.
    if (end <= start) end = codePointBoundary(text, start + 2)
    piece = text.slice(start, end)
    if (piece.trim()) yield piece.trim()
    start = end
  }
}

/** `index`, moved back one when it falls between the two halves of a surrogate pair. */
function codePointBoundary(text: string, index: number): number {
  const code = text.charCodeAt(index)
  return index < text.length && code >= 0xdc00 && code <= 0xdfff ? index - 1 : index
}
