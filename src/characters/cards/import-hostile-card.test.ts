/**
 * Cards come from strangers' sites: the two cards that held the loop (a lorebook of costly patterns,
 * a persona that multiplies its scenario) as regression tests on work and size, not time, and any
 * JSON at all refused with a clear error or imported.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { characterLimits } from '../../config/schema/character-limits.js'
import { createContextPipeline } from '../../context/create-context-pipeline.js'
import { macroOutputBudgetChars } from '../../context/macros/expand-macros.js'
import { BadRequestError, CharpipeError, InvalidConfigError } from '../../shared/errors.js'
import { messageText } from '../../shared/messages.js'
import { createFakeBuildOptions } from '../../testing/create-fake-build-options.js'
import { makeCardPng, makeCardV2, makeCardV3 } from '../../testing/index.js'
import { parseConfig } from '../load-config.js'
import { importCharacterCard } from './import-character-card.js'

const costlyKey = '(?:[a-z]?){900}[0-9]'

function cardWithKeys(keys: (index: number) => string[], useRegex: boolean) {
  const card = makeCardV3()
  card.data.character_book!.entries = Array.from({ length: 1_000 }, (_, index) => ({
    keys: keys(index),
    content: `entry ${index}`,
    extensions: {},
    enabled: true,
    insertion_order: index,
    use_regex: useRegex,
    ...(index === 0 ? { name: 'Dragons' } : {}),
  }))
  return card
}

describe('a card of 1,000 costly regex keys', () => {
  it('is refused at import, naming the entry, the key and the size of its program', () => {
    for (const card of [
      cardWithKeys(() => ['dragon', `/${costlyKey}/`], false),
      cardWithKeys(() => ['dragon', costlyKey], true),
    ]) {
      expect(() => importCharacterCard(card, 'application/json')).toThrow(
        new BadRequestError(
          'the card does not make a valid character: lorebook entry 0 ("Dragons"), key 1: the pattern is too costly (program of 1803 instructions; at most 1000)',
        ),
      )
    }
  })

  it('is refused by the config check too, wherever the character comes from', () => {
    const entries = Array.from({ length: 3 }, (_, index) => ({
      keys: [index === 2 ? `/${costlyKey}/i` : 'w'],
      content: 'c',
    }))
    let error: unknown
    try {
      parseConfig({ characters: { other: { name: 'Other', lorebook: { entries } } } })
    } catch (thrown) {
      error = thrown
    }
    expect(error).toBeInstanceOf(InvalidConfigError)
    expect((error as InvalidConfigError).issues).toEqual([
      {
        path: 'characters.other.lorebook.entries.2.keys.0',
        message:
          'lorebook entry 2, key 0: the pattern is too costly (program of 1803 instructions; at most 1000)',
      },
    ])
  })

  it('with keys just within the bound one by one, is refused for their total', () => {
    const card = cardWithKeys(() => ['/(?:[a-z]?){450}[0-9]/'], false)
    const fits = Math.floor(characterLimits.lorebookPatternInstructions / 903)
    expect(() => importCharacterCard(card, 'application/json')).toThrow(
      `lorebook entry ${fits}, key 0: the lorebook's patterns compile to more than ${characterLimits.lorebookPatternInstructions} instructions together`,
    )
  })
})

describe('a persona of {{scenario}} written 4,000 times over a 99,000-character scenario', () => {
  it('imports, and its prompt holds at most the templates plus the macro bound', async () => {
    const description = '{{scenario}}'.repeat(4_000)
    const scenario = `${'s'.repeat(98_999)}!`
    const { character } = importCharacterCard(makeCardV2({ description, scenario }), 'application/json')
    const options = createFakeBuildOptions({ config: { character } })
    const result = await createContextPipeline().build(options)
    const prompt = result.messages.map(messageText).join('')
    const templates = options.config.character.persona.length + scenario.length
    // Without the bound this prompt was 396 million characters.
    expect(prompt.length).toBeLessThan(templates + macroOutputBudgetChars + 10_000)
    expect(prompt.length).toBeGreaterThan(macroOutputBudgetChars)
    expect(result.logs.map((log) => log.message)).toContainEqual(
      expect.stringMatching(/^macros inserted more than 200000 characters \(macroOutputBudgetChars\)/),
    )
  })
})

describe('a card nested 10,000 levels deep in one of its fields', () => {
  // Kept as indented JSON, such a card grows with the square of its depth (10,000 levels: 100
  // million spaces, a second of the loop); refused before it is parsed, whatever carries it.
  const depth = 10_000
  const deepText = (field: string) => {
    const card = JSON.stringify(makeCardV2())
    return card.replace(`"${field}":`, `"${field}":${'['.repeat(depth)}${']'.repeat(depth)},"x_${field}":`)
  }

  it('is refused, naming the depth, as text, as bytes and in a PNG', () => {
    const refusal = new BadRequestError('the card nests objects or arrays deeper than 64 levels')
    for (const field of ['tags', 'extensions', 'name']) {
      const text = deepText(field)
      expect(() => importCharacterCard(text, 'application/json')).toThrow(refusal)
      expect(() => importCharacterCard(new TextEncoder().encode(text), 'application/json')).toThrow(refusal)
    }
    const png = makeCardPng({ chara: Buffer.from(deepText('tags')).toString('base64') })
    expect(() => importCharacterCard(png, 'image/png')).toThrow(
      new BadRequestError('the chara chunk nests objects or arrays deeper than 64 levels'),
    )
  })

  it('is refused as an object too, however deep', () => {
    let nested: unknown = []
    for (let level = 0; level < depth; level++) nested = [nested]
    const card = makeCardV2() as unknown as { data: Record<string, unknown> }
    card.data.extensions = { nested }
    expect(() => importCharacterCard(card, 'application/json')).toThrow(BadRequestError)
  })

  it('imports a card of ordinary depth as before', () => {
    const card = makeCardV2() as unknown as { data: Record<string, unknown> }
    let nested: unknown = 'leaf'
    for (let level = 0; level < 40; level++) nested = { level: nested }
    card.data.extensions = { nested }
    expect(importCharacterCard(JSON.stringify(card), 'application/json').id).toBe('seraphina')
  })
})

describe('importCharacterCard on any JSON', () => {
  const value = fc.jsonValue({ maxDepth: 3 })
  const entry = fc.record(
    {
      keys: fc.oneof(
        fc.array(fc.oneof(fc.string(), fc.constantFrom('/a+/', '/(?=x)/', `/${costlyKey}/`, '/[/'))),
        value,
      ),
      secondary_keys: value,
      content: fc.oneof(fc.string(), value),
      enabled: fc.oneof(fc.boolean(), value),
      use_regex: fc.oneof(fc.boolean(), value),
      extensions: fc.oneof(fc.dictionary(fc.string(), value), value),
      insertion_order: fc.oneof(fc.integer(), value),
    },
    { requiredKeys: [] },
  )
  const data = fc.record(
    {
      name: fc.oneof(fc.string(), value),
      description: fc.oneof(fc.constantFrom('{{scenario}}{{char}}', '{{a:{{a:'), fc.string(), value),
      scenario: fc.oneof(fc.string(), value),
      first_mes: fc.oneof(fc.string(), value),
      mes_example: fc.oneof(fc.string(), value),
      alternate_greetings: fc.oneof(fc.array(fc.string()), value),
      extensions: fc.oneof(fc.dictionary(fc.string(), value), value),
      character_book: fc.oneof(
        fc.record({ entries: fc.array(entry, { maxLength: 4 }) }, { requiredKeys: [] }),
        value,
      ),
    },
    { requiredKeys: [] },
  )
  const card = fc.oneof(
    value,
    fc.record(
      {
        spec: fc.constantFrom('chara_card_v2', 'chara_card_v3', 'other'),
        spec_version: fc.constantFrom('2.0', '3.0', 'x'),
        data,
      },
      { requiredKeys: [] },
    ),
  )

  it('refuses a spec named after an Object.prototype member as no card spec', () => {
    // The card's own `spec` field names its format: `toString` is none of them.
    for (const spec of ['toString', 'constructor', 'valueOf']) {
      expect(() => importCharacterCard({ spec, data: { name: 'Mira' } }, 'application/json')).toThrow(
        /is not a character card spec/,
      )
    }
  })

  it('refuses a key that reaches a prototype, naming where, as text, as bytes and in a PNG', () => {
    // Kept as it was, `__proto__` in a book entry or the card's own fields set that object's prototype.
    const text = JSON.stringify(makeCardV2()).replace(
      '"data":{',
      '"data":{"x_extra":{"__proto__":{"polluted":true}},',
    )
    for (const input of [text, new TextEncoder().encode(text)])
      expect(() => importCharacterCard(input, 'application/json')).toThrow(
        /the card: data\.x_extra\.__proto__: this key is not allowed/,
      )
    expect(() =>
      importCharacterCard(makeCardPng({ chara: Buffer.from(text).toString('base64') }), 'image/png'),
    ).toThrow(/data\.x_extra\.__proto__/)
  })

  it('imports it or refuses it with a BadRequestError, never another error', () => {
    fc.assert(
      fc.property(card, fc.boolean(), (given, asText) => {
        try {
          importCharacterCard(asText ? JSON.stringify(given) : (given as object), 'application/json')
        } catch (error) {
          expect(CharpipeError.isInstance(error)).toBe(true)
          expect(error).toBeInstanceOf(BadRequestError)
          expect((error as Error).message.length).toBeGreaterThan(10)
        }
      }),
      { numRuns: 400 },
    )
  })

  it('refuses bytes that are no card PNG with a BadRequestError, whatever they hold', () => {
    const signature = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]
    const chunk = fc
      .tuple(fc.constantFrom('IHDR', 'tEXt', 'IEND', 'zzzz'), fc.uint8Array({ maxLength: 60 }), fc.nat(100))
      .map(([name, data, length]) => [
        ...[0, 0, 0, length % 2 === 0 ? data.length : length],
        ...[...name].map((letter) => letter.charCodeAt(0)),
        ...data,
        ...[0, 0, 0, 0],
      ])
    const bytes = fc.oneof(
      fc.uint8Array({ maxLength: 200 }),
      fc.array(chunk, { maxLength: 4 }).map((chunks) => new Uint8Array([...signature, ...chunks.flat()])),
    )
    fc.assert(
      fc.property(bytes, (given) => {
        try {
          importCharacterCard(given, 'image/png')
        } catch (error) {
          expect(error).toBeInstanceOf(BadRequestError)
        }
      }),
      { numRuns: 400 },
    )
  })
})
