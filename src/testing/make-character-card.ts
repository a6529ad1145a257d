/**
 * Character cards for tests that import, export or serve cards: full V2 and V3 cards with overrides.
 * Put them in a PNG with `makeCardPng` (make-card-png.ts).
 *
 * @example
 * const png = makeCardPng({ ccv3: encodeCardChunkText(makeCardV3({ name: 'Luna' })) })
 */
import type { CharacterCardV2, CharacterCardV3 } from '@risuai/ccardlib'
import { loadCardLibrary } from '../characters/cards/load-card-library.js'

/**
 * A Character Card V2 of a forest guardian with every field filled (greetings, example dialogue,
 * extensions and a lorebook of three entries), converted from V1 by the card library as other apps
 * do; `overrides` replace fields of `data`.
 */
export function makeCardV2(overrides: Partial<CharacterCardV2['data']> = {}): CharacterCardV2 {
  const v1 = {
    name: 'Seraphina',
    description: '{{char}} is the guardian of an enchanted forest.',
    personality: 'warm, protective',
    scenario: '{{user}} wakes up in a glade.',
    first_mes: '*Seraphina kneels beside you.* You are safe now.',
    mes_example:
      '<START>\n{{user}}: Who are you?\n{{char}}: I am Seraphina.\nI keep this forest.\n<START>\n{{user}}: Is it dangerous?\n{{char}}: Only at night.',
  }
  const card = loadCardLibrary().character.convert(v1, { from: 'v1', to: 'v2' })
  Object.assign(card.data, {
    creator: 'tester',
    creator_notes: 'Made for a test.',
    tags: ['fantasy', 'guardian'],
    character_version: '1.2',
    system_prompt: 'You are {{char}}. Stay gentle.',
    post_history_instructions: 'Answer in two sentences at most.',
    alternate_greetings: ['Welcome back, {{user}}.', 'Oh! A visitor.'],
    extensions: { talkativeness: '0.6', fav: true, world: 'Eldoria' },
    character_book: {
      name: 'Eldoria',
      scan_depth: 3,
      token_budget: 300,
      recursive_scanning: false,
      extensions: { custom_book: 1 },
      entries: [
        {
          keys: ['dragon', 'wyrm'],
          content: 'Dragons sleep under the northern peaks.',
          extensions: {},
          enabled: true,
          insertion_order: 10,
          comment: 'dragons',
          id: 0,
          position: 'before_char',
        },
        {
          keys: ['castle'],
          secondary_keys: ['night'],
          selective: true,
          content: 'The castle is haunted after dark.',
          extensions: { probability: 100, position: 5 },
          enabled: true,
          insertion_order: 20,
          id: 1,
          position: 'after_char',
        },
        {
          keys: ['glade'],
          content: '{{char}} planted the glade herself.',
          extensions: { position: 4, depth: 1, role: 0 },
          enabled: true,
          insertion_order: 30,
          id: 2,
        },
      ],
    },
    ...overrides,
  })
  return card
}

/**
 * The same character as a Character Card V3, with the fields V3 adds, an unknown field (kept on
 * import) and a regex lorebook entry with `@@depth`/`@@role` decorators; `overrides` replace fields
 * of `data`.
 */
export function makeCardV3(overrides: Partial<CharacterCardV3['data']> = {}): CharacterCardV3 {
  const card = loadCardLibrary().character.convert(makeCardV2(), { from: 'v2', to: 'v3' })
  Object.assign(card.data, {
    nickname: 'Sera',
    group_only_greetings: ['Hello, everyone.'],
    source: ['https://example.com/seraphina'],
    creation_date: 1_700_000_000,
    modification_date: 1_700_000_500,
    x_unknown_field: { kept: true },
    ...overrides,
  })
  const book = card.data.character_book!
  book.entries.push({
    keys: ['/moon(light)?/i'],
    content: '@@depth 2\n@@role assistant\nThe moon is a sleeping goddess.',
    extensions: {},
    enabled: true,
    insertion_order: 5,
    use_regex: true,
  })
  return card
}
