import { describe, expect, it } from 'vitest'
import { lorebookSchema } from '../../config/schema.js'
import { estimateTokens } from '../../shared/estimate-tokens.js'
import { selectLorebookEntries } from './select-lorebook-entries.js'

function select(entries: Record<string, unknown>[], text: string): string[] {
  const lorebook = lorebookSchema.parse({ entries })
  return selectLorebookEntries({ lorebook, text, countTokens: estimateTokens, maxRecursion: 0 }).entries.map(
    (entry) => entry.content,
  )
}

describe('lorebook keys and whole words', () => {
  it('matches one-word keys as whole words by default, as SillyTavern does', () => {
    const wood = [{ keys: ['wood'], content: 'forest lore' }]
    expect(select(wood, 'I love Hollywood movies')).toEqual([])
    expect(select(wood, 'We walked into the wood, then home.')).toEqual(['forest lore'])
    expect(select(wood, 'Hollywood, then the WOOD.')).toEqual(['forest lore'])
    expect(select([{ keys: ['wood'], content: 'inside', match_whole_words: false }], 'Hollywood')).toEqual([
      'inside',
    ])
  })

  it('matches keys with spaces or punctuation inside text, and CJK keys inside CJK text', () => {
    expect(select([{ keys: ['red dragon'], content: 'd' }], 'the red dragons came')).toEqual(['d'])
    expect(select([{ keys: ['巨龙'], content: 'dragon' }], '山里住着巨龙吗')).toEqual(['dragon'])
    expect(select([{ keys: ['wood'], content: 'w' }], '我喜欢wood和木头')).toEqual(['w'])
    expect(select([{ keys: ['ドラゴン'], content: 'j' }], '昔々ドラゴンがいた')).toEqual(['j'])
  })

  it('follows the entry case setting', () => {
    const entries = [
      { keys: ['Rose'], content: 'name', case_sensitive: true },
      { keys: ['rose'], content: 'flower' },
    ]
    expect(select(entries, 'a rose for you')).toEqual(['flower'])
    expect(select(entries, 'Rose is here')).toEqual(['name', 'flower'])
  })
})
