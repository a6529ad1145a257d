import { CCardLib } from '@risuai/ccardlib'
import { decode as decodeTextChunk } from 'png-chunk-text'
import extractChunks from 'png-chunks-extract'
import { describe, expect, it } from 'vitest'
import { characterSchema } from '../../config/schema.js'
import { BadRequestError } from '../../shared/errors.js'
import {
  encodeCardChunkText,
  makeCardPng,
  makeCardV2,
  makeCardV3,
  makePlainPng,
} from '../../testing/index.js'
import { exportCharacterCard } from './export-character-card.js'
import { importCharacterCard } from './import-character-card.js'

function textChunks(png: Uint8Array): Record<string, unknown> {
  const found: Record<string, unknown> = {}
  for (const chunk of extractChunks(png)) {
    if (chunk.name !== 'tEXt') continue
    const { keyword, text } = decodeTextChunk(chunk.data)
    found[keyword] = JSON.parse(Buffer.from(text, 'base64').toString('utf8'))
  }
  return found
}

function pictureOf(avatar: string | undefined): Uint8Array {
  expect(avatar).toMatch(/^data:image\/png;base64,/)
  return new Uint8Array(Buffer.from(avatar!.split(',')[1]!, 'base64'))
}

describe('importCharacterCard', () => {
  it('maps a V2 card onto the character block and keeps what charpipe does not use', () => {
    const { id, character } = importCharacterCard(makeCardV2(), 'application/json')
    expect(id).toBe('seraphina')
    expect(character).toMatchObject({
      name: 'Seraphina',
      persona: "{{char}} is the guardian of an enchanted forest.\n\n{{char}}'s personality: warm, protective",
      scenario: '{{user}} wakes up in a glade.',
      greeting: '*Seraphina kneels beside you.* You are safe now.',
      alternate_greetings: ['Welcome back, {{user}}.', 'Oh! A visitor.'],
      injected_history: [
        { role: 'user', content: 'Who are you?' },
        { role: 'assistant', content: 'I am Seraphina.\nI keep this forest.' },
        { role: 'user', content: 'Is it dangerous?' },
        { role: 'assistant', content: 'Only at night.' },
      ],
      pipeline: {
        processors: {
          'injection-assembler': {
            system_prompt: 'You are {{char}}. Stay gentle.\n\n{{original}}',
            depth_injections: [{ role: 'system', depth: 0, content: 'Answer in two sentences at most.' }],
          },
        },
      },
      card: {
        creator: 'tester',
        creator_notes: 'Made for a test.',
        tags: ['fantasy', 'guardian'],
        character_version: '1.2',
        extensions: { talkativeness: '0.6', fav: true, world: 'Eldoria' },
      },
    })
    const lorebook = characterSchema.parse(character).lorebook
    expect(lorebook).toMatchObject({ scan_depth: 3, token_budget: 300, card: { name: 'Eldoria' } })
    expect(
      lorebook.entries.map((entry) => [entry.keys, entry.position, entry.depth, entry.selective]),
    ).toEqual([
      [['dragon', 'wyrm'], 'before_char', 4, false],
      [['castle'], 'after_char', 4, true],
      [['glade'], 'depth', 1, false],
    ])
  })

  it("chooses the emotion labels of the card's language, unless charpipe's extension brings them", () => {
    const english = importCharacterCard(makeCardV2(), 'application/json').character
    expect(english).toMatchObject({
      default_emotion: 'calm',
      emotions: ['happy', 'calm', 'sad', 'angry', 'surprised', 'afraid', 'shy'],
      emotion_aliases: { joy: 'happy', neutral: 'calm', fear: 'afraid' },
    })
    const chinese = importCharacterCard(
      makeCardV2({
        name: '小雪',
        description: '温柔的猫娘，住在山里。',
        first_mes: '你好呀！',
        scenario: '',
        mes_example: '',
      }),
      'application/json',
    ).character
    expect(characterSchema.parse(chinese).default_emotion).toBe('平静')
    const own = importCharacterCard(
      makeCardV2({ extensions: { charpipe: { emotions: ['joy', 'gloom'], default_emotion: 'gloom' } } }),
      'application/json',
    ).character
    expect(own).toMatchObject({ emotions: ['joy', 'gloom'], default_emotion: 'gloom' })
    // Exported and imported again, the character keeps its labels.
    const again = importCharacterCard(
      exportCharacterCard(characterSchema.parse(english), { format: 'json' }),
      'application/json',
    ).character
    expect(again).toMatchObject({ default_emotion: 'calm', emotions: english.emotions })
  })

  it('reads V3 fields, content decorators and use_regex keys', () => {
    const { character } = importCharacterCard(JSON.stringify(makeCardV3()), 'application/json')
    expect(character.card).toMatchObject({
      nickname: 'Sera',
      group_only_greetings: ['Hello, everyone.'],
      x_unknown_field: { kept: true },
      creation_date: 1_700_000_000,
    })
    const moon = characterSchema.parse(character).lorebook.entries[3]!
    expect(moon).toMatchObject({
      keys: ['/moon(light)?/i'],
      content: 'The moon is a sleeping goddess.',
      position: 'depth',
      depth: 2,
      role: 'assistant',
      card: { use_regex: true, decorators: [] },
    })
  })

  it('takes the ccv3 chunk of a PNG over its chara chunk, and the picture without them as the avatar', () => {
    const picture = makePlainPng()
    const png = makeCardPng(
      {
        chara: encodeCardChunkText(makeCardV2({ name: 'Old Name' })),
        ccv3: encodeCardChunkText(makeCardV3()),
      },
      picture,
    )
    const { id, character } = importCharacterCard(png, 'image/png')
    expect(id).toBe('seraphina')
    expect(pictureOf(character.avatar)).toEqual(picture)
    const onlyV2 = importCharacterCard(makeCardPng({ chara: encodeCardChunkText(makeCardV2()) }), 'image/png')
    expect(onlyV2.character.name).toBe('Seraphina')
  })

  it('gives a usable, stable id for any name', () => {
    const idOf = (name: string) => importCharacterCard(makeCardV2({ name }), 'application/json').id
    expect(idOf('Zoë the Brave')).toBe('zoe-the-brave')
    expect(idOf('小助手')).toBe('小助手')
    expect(idOf('../../etc')).toBe('etc')
    expect(idOf('★☆!')).toMatch(/^character-[0-9a-f]{8}$/)
    expect(idOf('★☆!')).toBe(idOf('★☆!'))
  })
})

describe('exportCharacterCard round trip', () => {
  const cases = [
    { name: 'V2 JSON', input: () => JSON.stringify(makeCardV2()), type: 'application/json' as const },
    { name: 'V3 JSON', input: () => makeCardV3(), type: 'application/json' as const },
    {
      name: 'V2 PNG',
      input: () => makeCardPng({ chara: encodeCardChunkText(makeCardV2()) }),
      type: 'image/png' as const,
    },
    {
      name: 'V3 PNG',
      input: () =>
        makeCardPng({ chara: encodeCardChunkText(makeCardV2()), ccv3: encodeCardChunkText(makeCardV3()) }),
      type: 'image/png' as const,
    },
  ]

  for (const { name, input, type } of cases) {
    it(`${name}: import → export (JSON and PNG) → import gives the same character`, () => {
      const first = importCharacterCard(input(), type)
      const character = characterSchema.parse(first.character)
      const json = exportCharacterCard(character, { format: 'json' })
      const card = JSON.parse(Buffer.from(json).toString('utf8'))
      expect(CCardLib.character.check(card)).toBe('v3')
      const again = importCharacterCard(json, 'application/json')
      expect(again.id).toBe(first.id)
      expect(again.character).toEqual({ ...first.character, avatar: undefined })
      expect(JSON.parse(again.cardJson)).toEqual(card)

      const png = exportCharacterCard(character, { format: 'png' })
      const chunks = textChunks(png)
      expect(chunks.ccv3).toEqual(card)
      expect(CCardLib.character.check(chunks.chara)).toBe('v2')
      const fromPng = importCharacterCard(png, 'image/png')
      expect(fromPng.character).toEqual({ ...first.character, avatar: fromPng.character.avatar })
      if (type === 'image/png') expect(fromPng.character.avatar).toBe(first.character.avatar)
    })
  }

  it('writes back the fields charpipe does not use, and V2 readers find theirs', () => {
    const character = characterSchema.parse(importCharacterCard(makeCardV3(), 'application/json').character)
    const png = exportCharacterCard(character, { format: 'png' })
    const { ccv3, chara } = textChunks(png) as Record<string, { data: Record<string, unknown> }>
    expect(ccv3!.data).toMatchObject({
      creator: 'tester',
      tags: ['fantasy', 'guardian'],
      nickname: 'Sera',
      x_unknown_field: { kept: true },
      extensions: { talkativeness: '0.6', fav: true, world: 'Eldoria' },
      description: '{{char}} is the guardian of an enchanted forest.',
      personality: 'warm, protective',
      system_prompt: 'You are {{char}}. Stay gentle.',
      post_history_instructions: 'Answer in two sentences at most.',
    })
    const entries = (ccv3!.data.character_book as { entries: Record<string, unknown>[] }).entries
    // A SillyTavern position charpipe has no place for (5: before the example messages) is kept.
    expect(entries[1]!.extensions).toEqual({
      probability: 100,
      position: 5,
      depth: 4,
      role: 0,
      match_whole_words: true,
      case_sensitive: false,
    })
    const moon = entries[3] as { content: string }
    expect(moon.content).toBe('@@depth 2\n@@role assistant\nThe moon is a sleeping goddess.')
    // The V2 form has no V3-only decorators in its content.
    const v2Moon = (chara!.data.character_book as { entries: { content: string }[] }).entries[3]!
    expect(v2Moon.content).toBe('The moon is a sleeping goddess.')
    expect(chara!.data).toMatchObject({ name: 'Seraphina', first_mes: character.greeting })
  })

  it("carries charpipe's own presentation fields in extensions.charpipe, and nothing else through it", () => {
    const character = characterSchema.parse({
      name: 'Mika',
      user_name: 'Captain',
      reply_format: 'json',
      emotions: ['happy', 'sad'],
      default_emotion: 'happy',
      inline_emotion_tags: true,
    })
    const card = JSON.parse(Buffer.from(exportCharacterCard(character, { format: 'json' })).toString('utf8'))
    expect(card.data.extensions).toEqual({
      charpipe: {
        user_name: 'Captain',
        reply_format: 'json',
        emotions: ['happy', 'sad'],
        default_emotion: 'happy',
        inline_emotion_tags: true,
      },
    })
    const back = characterSchema.parse(importCharacterCard(card, 'application/json').character)
    expect(back).toEqual({ ...character, card: {} })
    card.data.extensions.charpipe.pipeline = { processors: { 'regex-processor': { rules: [] } } }
    expect(importCharacterCard(card, 'application/json').character.pipeline).toBeUndefined()
    card.data.extensions.charpipe.emotions = ['happy', 3]
    expect(() => importCharacterCard(card, 'application/json')).toThrow(
      /data\.extensions\.charpipe\.emotions\.1: /,
    )
  })

  it('exports a character made in charpipe with a default picture', () => {
    const character = characterSchema.parse({ name: '小助手', persona: '温柔。', greeting: '你好！' })
    const png = exportCharacterCard(character, { format: 'png' })
    const { ccv3 } = textChunks(png) as Record<string, { data: Record<string, unknown> }>
    expect(CCardLib.character.check(ccv3)).toBe('v3')
    expect(ccv3!.data).toMatchObject({
      name: '小助手',
      description: '温柔。',
      first_mes: '你好！',
      personality: '',
    })
    expect(extractChunks(png).map((chunk) => chunk.name)).toEqual(['IHDR', 'IDAT', 'tEXt', 'tEXt', 'IEND'])
  })
})

describe('bad cards', () => {
  const png = (texts: Record<string, string>) => makeCardPng(texts)
  const valid = makeCardPng({ chara: encodeCardChunkText(makeCardV2()) })
  const cases: [string, () => [Uint8Array | string | object, 'application/json' | 'image/png'], RegExp][] = [
    ['not a PNG', () => [Buffer.from('GIF89a....'), 'image/png'], /bad PNG: .*PNG signature/],
    ['a cut PNG', () => [valid.subarray(0, valid.length - 20), 'image/png'], /bad PNG/],
    [
      'a chunk declaring 4 GB',
      () => {
        const bytes = new Uint8Array(valid)
        new DataView(bytes.buffer).setUint32(8, 0xfffffff0)
        return [bytes, 'image/png']
      },
      /bad PNG: a chunk runs past the end/,
    ],
    [
      'a damaged card chunk',
      () => {
        const bytes = new Uint8Array(valid)
        const at = Buffer.from(bytes).indexOf('chara\0') + 8
        bytes[at] = bytes[at] === 65 ? 66 : 65
        return [bytes, 'image/png']
      },
      /bad PNG: the chara chunk is damaged/,
    ],
    ['a PNG without a card', () => [makePlainPng(), 'image/png'], /no "chara" or "ccv3" text chunk/],
    ['bad base64', () => [png({ chara: 'not*base64!' }), 'image/png'], /chara chunk is not base64/],
    [
      'base64 of no JSON',
      () => [png({ ccv3: Buffer.from('{oops').toString('base64') }), 'image/png'],
      /ccv3 chunk is not valid JSON/,
    ],
    ['bad JSON', () => ['{"spec": "chara_card_v2",', 'application/json'], /the card is not valid JSON/],
    ['a list', () => [[1, 2], 'application/json'], /must be a JSON object, got a list/],
    [
      'another spec',
      () => [{ spec: 'chara_card_v9', data: {} }, 'application/json'],
      /spec: "chara_card_v9" is not/,
    ],
    ['no data', () => [{ spec: 'chara_card_v3', spec_version: '3.0' }, 'application/json'], /data: missing/],
    [
      'no name',
      () => [{ ...makeCardV2(), data: { ...makeCardV2().data, name: undefined } }, 'application/json'],
      /data\.name: missing/,
    ],
    ['a blank name', () => [makeCardV2({ name: '  ' }), 'application/json'], /data\.name: must not be empty/],
    [
      'a greeting list that is a string',
      () => [
        { ...makeCardV2(), data: { ...makeCardV2().data, alternate_greetings: 'hi' } },
        'application/json',
      ],
      /data\.alternate_greetings: .*expected array/,
    ],
    [
      'a lorebook key that is a number',
      () => {
        const card = makeCardV3()
        ;(card.data.character_book!.entries[0]!.keys as unknown[]) = ['ok', 7]
        return [card, 'application/json']
      },
      /data\.character_book\.entries\.0\.keys\.1: .*expected string/,
    ],
    [
      'a V1 card with a numeric description',
      () => [{ name: 'A', description: 5 }, 'application/json'],
      /^invalid character card: description: /,
    ],
    [
      'another content type',
      () => ['{}', 'text/plain' as 'application/json'],
      /application\/json or image\/png/,
    ],
  ]
  for (const [name, make, message] of cases) {
    it(`refuses ${name} with a clear error`, () => {
      const [input, type] = make()
      let thrown: unknown
      try {
        importCharacterCard(input, type)
      } catch (error) {
        thrown = error
      }
      expect(BadRequestError.isInstance(thrown)).toBe(true)
      expect((thrown as Error).message).toMatch(message)
    })
  }

  it('leaves its input as it was', () => {
    const card = makeCardV2({ alternate_greetings: 'hi' as unknown as string[] })
    const before = structuredClone(card)
    expect(() => importCharacterCard(card, 'application/json')).toThrow(BadRequestError)
    expect(card).toEqual(before)
  })
})
