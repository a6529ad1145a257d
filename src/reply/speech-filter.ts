/**
 * Speech filters clean sentence text for a TTS engine (display text keeps the original):
 * `markdown` removes emphasis, inline code marks, code blocks, headings, bullets and link targets;
 * `emoji` removes pictographs; `stage_directions` removes `*waves*` and `（笑）`-style asides.
 * They run on one sentence at a time, never on the whole reply; the only state carried between
 * sentences is whether a code block is open.
 */
import type { SpeechFilter } from '../config/schema.js'

export interface SpeechTextFilter {
  /** The sentence as it should be spoken ('' when nothing is left to say). */
  filter(sentence: string): string
}

const FENCE = /^\s*(```|~~~)/
const HEADING = /^\s{0,3}#{1,6}(\s+|$)/
const QUOTE_MARK = /^\s{0,3}>\s?/
const BULLET = /^\s*[-*+•]\s+/
const RULE = /^\s*([-*_])(\s*\1){2,}\s*$/
const IMAGE = /!\[([^\]\n]*)\]\([^)\n]*\)/g
const LINK = /\[([^\]\n]+)\]\([^)\n]*\)/g
const INLINE_CODE = /`+([^`\n]*)`+/g
const STRONG = /(\*\*|__)(?=\S)([\s\S]*?\S)\1/g
const EMPHASIS_STAR = /(?<![*\w])\*(?=[^\s*])([^*\n]*?[^\s*])\*(?![*\w])/g
const EMPHASIS_UNDERSCORE = /(?<![_\p{L}\p{N}])_(?=[^\s_])([^_\n]*?[^\s_])_(?![_\p{L}\p{N}])/gu
const LEFTOVER_STRONG = /\*\*|__/g
const STAGE_STAR = /(?<!\*)\*(?!\*)[^*\n]+?(?<!\*)\*(?!\*)/g
const STAGE_BRACKETS = /（[^（）]*）|\([^()]*\)/g
const EMOJI = /\p{Extended_Pictographic}|[\u{1F1E6}-\u{1F1FF}\u{1F3FB}-\u{1F3FF}]|\u200d|\ufe0f|\u20e3/gu
const SPACE_RUNS = /[ \t]{2,}/g
/** Characters without which no Markdown rule can apply: most sentences skip the rules at once. */
const MARKDOWN_HINT = /[*_`#>\-+•[~]/

class SentenceSpeechFilter implements SpeechTextFilter {
  private inCodeBlock = false
  private readonly markdown: boolean
  private readonly emoji: boolean
  private readonly stageDirections: boolean

  constructor(filters: readonly SpeechFilter[]) {
    this.markdown = filters.includes('markdown')
    this.emoji = filters.includes('emoji')
    this.stageDirections = filters.includes('stage_directions')
  }

  filter(sentence: string): string {
    let text = sentence
    if (this.stageDirections) text = text.replace(STAGE_STAR, '').replace(STAGE_BRACKETS, '')
    if (this.markdown && (this.inCodeBlock || MARKDOWN_HINT.test(text))) text = this.removeMarkdown(text)
    if (this.emoji) text = text.replace(EMOJI, '')
    if (text === sentence) return text.trim()
    return text.replace(SPACE_RUNS, ' ').trim()
  }

  private removeMarkdown(text: string): string {
    const lines = text.split('\n')
    const kept: string[] = []
    for (const line of lines) {
      if (FENCE.test(line)) {
        this.inCodeBlock = !this.inCodeBlock
        continue
      }
      // Code is for reading, not for listening.
      if (this.inCodeBlock || RULE.test(line)) continue
      kept.push(removeInlineMarkdown(line.replace(HEADING, '').replace(QUOTE_MARK, '').replace(BULLET, '')))
    }
    return kept.join('\n')
  }
}

function removeInlineMarkdown(line: string): string {
  return line
    .replace(IMAGE, '$1')
    .replace(LINK, '$1')
    .replace(INLINE_CODE, '$1')
    .replace(STRONG, '$2')
    .replace(EMPHASIS_STAR, '$1')
    .replace(EMPHASIS_UNDERSCORE, '$1')
    .replace(LEFTOVER_STRONG, '')
}

/** Creates the speech filter of one reply (it remembers an open code block between sentences). */
export function createSpeechFilter(filters: readonly SpeechFilter[]): SpeechTextFilter {
  return new SentenceSpeechFilter(filters)
}
