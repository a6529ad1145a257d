/**
 * Test factories: Character Cards V2 and V3 built with the card library, and PNGs carrying them
 * built with the PNG chunk libraries (dev dependencies), the way other apps write them. Used by the
 * card tests of src/characters/ and test/; test code, so it lives here and not beside the product.
 */
import { deflateSync } from 'node:zlib'
import type { CharacterCardV2, CharacterCardV3 } from '@risuai/ccardlib'
import { encode as encodeTextChunk } from 'png-chunk-text'
import encodeChunks from 'png-chunks-encode'
import extractChunks from 'png-chunks-extract'
import { loadCardLibrary } from '../../src/characters/cards/load-card-library.js'

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

/** A 2×2 RGB PNG without any text chunk. */
export function makePicture(): Uint8Array {
  const header = new Uint8Array(13)
  new DataView(header.buffer).setUint32(0, 2)
  new DataView(header.buffer).setUint32(4, 2)
  header.set([8, 2, 0, 0, 0], 8)
  const rows = new Uint8Array([0, 255, 0, 0, 0, 255, 0, 0, 0, 0, 0, 255, 255, 255, 255])
  return encodeChunks([
    { name: 'IHDR', data: header },
    { name: 'IDAT', data: new Uint8Array(deflateSync(rows)) },
    { name: 'IEND', data: new Uint8Array(0) },
  ])
}

/** A PNG carrying text chunks (keyword → text), put before IEND as card apps do. */
export function makeCardPng(texts: Record<string, string>, picture = makePicture()): Uint8Array {
  const chunks = extractChunks(picture)
  const added = Object.entries(texts).map(([keyword, text]) => encodeTextChunk(keyword, text))
  chunks.splice(-1, 0, ...added)
  return encodeChunks(chunks)
}

export function base64Json(value: unknown): string {
  return Buffer.from(JSON.stringify(value), 'utf8').toString('base64')
}
