/**
 * Splits a text or Markdown document into retrieval chunks: sections by heading, paragraphs within
 * a section packed up to `maxTokens`, and each chunk starting with the last paragraph of the one
 * before it (the overlap) so a fact split across a boundary is still found whole. Every chunk
 * carries its heading path ("Setup > Linux"). Tokens are the linear estimate, never a BPE
 * tokenizer, whose cost is quadratic in one unbroken run of text.
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

interface Section {
  headings: string[]
  paragraphs: string[]
}

export function chunkKnowledgeText(text: string, options: ChunkKnowledgeTextOptions = {}): KnowledgeChunk[] {
  const maxTokens = options.maxTokens ?? 300
  const overlapTokens = options.overlapTokens ?? 60
  const chunks: KnowledgeChunk[] = []
  for (const section of splitSections(text)) {
    const pieces = section.paragraphs.flatMap((paragraph) => splitLongParagraph(paragraph, maxTokens))
    let current: string[] = []
    let currentTokens = 0
    let fresh = 0
    for (const piece of pieces) {
      const tokens = countTokens(piece)
      if (current.length && currentTokens + tokens > maxTokens) {
        chunks.push({ text: current.join('\n\n'), headings: section.headings })
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
    if (fresh > 0) chunks.push({ text: current.join('\n\n'), headings: section.headings })
  }
  return chunks
}

function splitSections(text: string): Section[] {
  const sections: Section[] = []
  const path: { level: number; title: string }[] = []
  let section: Section = { headings: [], paragraphs: [] }
  let paragraph: string[] = []
  let inFence = false
  const flushParagraph = () => {
    const joined = paragraph.join('\n').trim()
    if (joined) section.paragraphs.push(joined)
    paragraph = []
  }
  for (const line of text.replace(/\r\n?/g, '\n').split('\n')) {
    if (/^\s*(```|~~~)/.test(line)) inFence = !inFence
    const heading = inFence ? null : /^(#{1,6})\s+(.+?)\s*#*\s*$/.exec(line)
    if (heading) {
      flushParagraph()
      if (section.paragraphs.length) sections.push(section)
      const level = (heading[1] as string).length
      while (path.length && (path[path.length - 1] as { level: number }).level >= level) path.pop()
      path.push({ level, title: heading[2] as string })
      section = { headings: path.map((entry) => entry.title), paragraphs: [] }
    } else if (!inFence && line.trim() === '') {
      flushParagraph()
    } else {
      paragraph.push(line)
    }
  }
  flushParagraph()
  if (section.paragraphs.length) sections.push(section)
  return sections
}

/** A paragraph over the limit is cut at sentence ends, and a sentence over it at the limit. */
function splitLongParagraph(paragraph: string, maxTokens: number): string[] {
  if (countTokens(paragraph) <= maxTokens) return [paragraph]
  const sentences = paragraph.match(/[^。！？.!?\n]+[。！？.!?]*\s*/gu) ?? [paragraph]
  const pieces: string[] = []
  let current = ''
  for (const sentence of sentences) {
    if (current && countTokens(current + sentence) > maxTokens) {
      pieces.push(current.trim())
      current = ''
    }
    if (countTokens(sentence) > maxTokens) {
      pieces.push(...cutByCharacters(sentence, maxTokens))
      continue
    }
    current += sentence
  }
  if (current.trim()) pieces.push(current.trim())
  return pieces
}

function cutByCharacters(text: string, maxTokens: number): string[] {
  const characters = [...text]
  const pieces: string[] = []
  let size = Math.max(1, Math.floor((characters.length * maxTokens) / countTokens(text)))
  for (let start = 0; start < characters.length; start += size) {
    let piece = characters.slice(start, start + size).join('')
    while (countTokens(piece) > maxTokens && size > 1) {
      size = Math.max(1, Math.floor(size * 0.8))
      piece = characters.slice(start, start + size).join('')
    }
    if (piece.trim()) pieces.push(piece.trim())
  }
  return pieces
}
