/**
 * Lorebook keys read as the card's writer meant them: SillyTavern's `use_regex: true` (on every
 * entry it exports) is not read as "keys are patterns"; a V3 writer's is; the book round-trips.
 */
import { describe, expect, it } from 'vitest'
import { characterSchema } from '../../config/schema.js'
import { selectLorebookEntries } from '../../context/lorebook/select-lorebook-entries.js'
import { estimateTokens } from '../../shared/estimate-tokens.js'
import { makeCardV2 } from '../../testing/index.js'
import { exportCharacterCard } from './export-character-card.js'
import { importCharacterCard } from './import-character-card.js'
import { isSillyTavernEntry } from './is-sillytavern-entry.js'

/** The world-info fields SillyTavern writes into each exported entry (a subset, as it writes them). */
const sillyTavernExtensions = {
  position: 0,
  exclude_recursion: false,
  display_index: 0,
  probability: 100,
  useProbability: true,
  depth: 4,
  selectiveLogic: 0,
  group: '',
  match_whole_words: null,
  case_sensitive: null,
  role: 0,
}

const entry = (keys: string[], content: string, extensions: Record<string, unknown>) => ({
  keys,
  content,
  extensions,
  enabled: true,
  insertion_order: 100,
  use_regex: true,
})

function importBook(extensions: Record<string, unknown>) {
  const card = makeCardV2({
    character_book: {
      name: 'Eldoria',
      extensions: {},
      entries: [
        entry(['wood'], 'The Whispering Wood surrounds the glade.', extensions),
        entry(['eldoria'], 'Eldoria is the realm beyond the forest.', extensions),
        entry(['/drag(on|ons)/i'], 'Dragons sleep under the peaks.', extensions),
      ],
    },
  })
  const { character } = importCharacterCard(JSON.stringify(card), 'application/json')
  return characterSchema.parse(character)
}

const fired = (lorebook: ReturnType<typeof importBook>['lorebook'], text: string) =>
  selectLorebookEntries({ lorebook, text, countTokens: estimateTokens, maxRecursion: 0 }).entries.map(
    (selected) => selected.content.split(' ')[1],
  )

describe('lorebook keys of cards from SillyTavern and from V3 writers', () => {
  it('SillyTavern: plain keys are whole words in any case, /…/flags keys are patterns', () => {
    const { lorebook } = importBook(sillyTavernExtensions)
    expect(lorebook.entries.map((read) => read.keys)).toEqual([['wood'], ['eldoria'], ['/drag(on|ons)/i']])
    expect(fired(lorebook, 'I love Hollywood movies')).toEqual([])
    expect(fired(lorebook, 'Tell me about Eldoria.')).toEqual(['is'])
    expect(fired(lorebook, 'Into the wood we go')).toEqual(['Whispering'])
    expect(fired(lorebook, 'Two DRAGONS!')).toEqual(['sleep'])
  })

  it('a V3 writer (RisuAI): use_regex makes every key a pattern, as the spec says', () => {
    const { lorebook } = importBook({ risu_case_sensitive: false })
    expect(lorebook.entries.map((read) => read.keys)).toEqual([
      ['/wood/'],
      ['/eldoria/'],
      ['/drag(on|ons)/i'],
    ])
    expect(fired(lorebook, 'I love Hollywood movies')).toEqual(['Whispering'])
  })

  it("SillyTavern's keys are written back as they came", () => {
    const character = importBook(sillyTavernExtensions)
    const exported = JSON.parse(new TextDecoder().decode(exportCharacterCard(character, { format: 'json' })))
    const entries = exported.data.character_book.entries as { keys: string[]; use_regex: boolean }[]
    expect(entries.map((written) => [written.keys, written.use_regex])).toEqual([
      [['wood'], true],
      [['eldoria'], true],
      [['/drag(on|ons)/i'], true],
    ])
  })

  it('tells entries apart by the world-info fields only SillyTavern writes', () => {
    expect(isSillyTavernEntry(sillyTavernExtensions)).toBe(true)
    expect(isSillyTavernEntry({ risu_case_sensitive: true })).toBe(false)
    expect(isSillyTavernEntry({})).toBe(false)
    expect(isSillyTavernEntry(undefined)).toBe(false)
  })
})
