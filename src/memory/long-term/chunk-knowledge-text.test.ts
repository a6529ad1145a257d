import { describe, expect, it } from 'vitest'
import { chunkKnowledgeText } from './chunk-knowledge-text.js'

describe('chunkKnowledgeText', () => {
  it('splits Markdown by headings and carries the heading path', () => {
    const chunks = chunkKnowledgeText(
      '# Guide\n\nIntro text.\n\n## Setup\n\nInstall it.\n\n### Linux\n\nUse apt.\n\n## Usage\n\nRun it.',
    )
    expect(chunks).toEqual([
      { text: 'Intro text.', headings: ['Guide'] },
      { text: 'Install it.', headings: ['Guide', 'Setup'] },
      { text: 'Use apt.', headings: ['Guide', 'Setup', 'Linux'] },
      { text: 'Run it.', headings: ['Guide', 'Usage'] },
    ])
  })

  it('packs paragraphs up to the limit and overlaps by the previous paragraph', () => {
    const paragraphs = Array.from({ length: 6 }, (_, index) =>
      `Paragraph ${index} ${'word '.repeat(20)}`.trim(),
    )
    const chunks = chunkKnowledgeText(paragraphs.join('\n\n'), { maxTokens: 60, overlapTokens: 30 })
    expect(chunks.length).toBeGreaterThan(2)
    for (let index = 1; index < chunks.length; index++) {
      const previous = chunks[index - 1]?.text.split('\n\n') ?? []
      expect(chunks[index]?.text.startsWith(previous[previous.length - 1] ?? '!')).toBe(true)
    }
    const all = chunks.map((chunk) => chunk.text).join('\n\n')
    for (const paragraph of paragraphs) expect(all).toContain(paragraph)
  })

  it('cuts a paragraph longer than the limit at sentence ends, also in Chinese', () => {
    const text = '今天天气很好。'.repeat(80)
    const chunks = chunkKnowledgeText(text, { maxTokens: 50, overlapTokens: 0 })
    expect(chunks.length).toBeGreaterThan(1)
    expect(chunks.map((chunk) => chunk.text).join('')).toBe(text)
  })

  it('does not take a # line inside a code fence for a heading', () => {
    const chunks = chunkKnowledgeText('# Title\n\n```sh\n# a comment\necho hi\n```')
    expect(chunks).toHaveLength(1)
    expect(chunks[0]?.headings).toEqual(['Title'])
    expect(chunks[0]?.text).toContain('# a comment')
  })

  it('gives plain text without headings an empty path', () => {
    expect(chunkKnowledgeText('one\n\ntwo')).toEqual([{ text: 'one\n\ntwo', headings: [] }])
  })
})
