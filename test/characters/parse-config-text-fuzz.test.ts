/**
 * The config file is text someone wrote by hand, read at start and again on every change while the
 * server runs (and so is each YAML file of `characters_dir`). Whatever it holds (anchors and
 * aliases, an alias inside the node it names, an alias bomb, tags, merge keys, complex keys, deep
 * nesting, stray bytes), reading it ends in a config or in an `InvalidConfigError` naming the line
 * or the field: never another error, and never a cyclic object that a later walk of the config
 * follows until the heap runs out.
 */
import fc from 'fast-check'
import { describe, expect, it, vi } from 'vitest'
import { parseConfigFile } from '../../src/characters/load-config.js'
import { parseConfigText } from '../../src/config/parse-config-text.js'
import { InvalidConfigError } from '../../src/shared/errors.js'
import { makeYamlAliasBomb } from '../support/yaml-alias-bomb.js'

const validText = `llm:
  provider: openai
  model: gpt-4o-mini
  temperature: 0.7
character:
  name: Alice
  persona: A cheerful guide of the harbour.
  emotions: [neutral, happy, sad]
`

const keys = fc.constantFrom(
  'llm',
  'character',
  'memory',
  'name',
  'temperature',
  'persona',
  '__proto__',
  'toString',
  '<<',
  '"a key"',
  '~',
  '? [a, b]',
)
const anchorNames = fc.constantFrom('a', 'b', 'c')
const scalars = fc.oneof(
  fc.constantFrom(
    '0.7',
    '1e999',
    '.nan',
    '-.inf',
    '0x1F',
    '2001-12-14',
    'true',
    'null',
    '~',
    "'it''s'",
    '"\\u00e9"',
  ),
  fc.constantFrom(
    '!!binary aGVsbG8=',
    '!!str 1',
    '!!int x',
    '!custom {a: 1}',
    '!!set {a, b}',
    '!!omap [a: 1]',
  ),
  fc.string({ maxLength: 12 }).map((text) => JSON.stringify(text)),
)
const values = fc.oneof(
  scalars,
  anchorNames.map((name) => `*${name}`),
  fc.tuple(anchorNames, scalars).map(([name, scalar]) => `&${name} ${scalar}`),
  fc
    .array(
      fc.oneof(
        scalars,
        anchorNames.map((name) => `*${name}`),
      ),
      { maxLength: 5 },
    )
    .map((items) => `[${items.join(', ')}]`),
  anchorNames.map((name) => `&${name}`),
  fc.constant(''),
)
/** Lines of `key: value` at random depths: some YAML, some not, with anchors before their aliases or not. */
const generatedYaml = fc
  .array(fc.tuple(fc.nat({ max: 4 }), keys, values), { minLength: 1, maxLength: 14 })
  .map((lines) => lines.map(([depth, key, value]) => `${'  '.repeat(depth)}${key}: ${value}`).join('\n'))
/** The valid file with a few characters replaced, inserted or removed. */
const editedValidText = fc
  .array(
    fc.tuple(
      fc.nat({ max: validText.length }),
      fc.nat({ max: 3 }),
      fc.constantFrom('', '*a', '&a', ':', '-', '[', '{', ' ', '\n', '\t', '#', '!', '"', '\u0000'),
    ),
    { minLength: 1, maxLength: 4 },
  )
  .map((edits) => {
    let text = validText
    for (const [at, removed, inserted] of edits)
      text = text.slice(0, at) + inserted + text.slice(at + removed)
    return text
  })
const texts = fc.oneof(
  { weight: 4, arbitrary: generatedYaml },
  { weight: 3, arbitrary: editedValidText },
  { weight: 1, arbitrary: fc.string({ maxLength: 200 }) },
  {
    weight: 1,
    arbitrary: fc.nat({ max: 3000 }).map((depth) => `a: ${'['.repeat(depth)}${']'.repeat(depth)}`),
  },
)

/** Reads `text` as the loader does; returns what went wrong, if anything. */
function readConfigText(text: string): unknown {
  try {
    parseConfigFile(parseConfigText(text), { environment: {} })
    return undefined
  } catch (error) {
    return error
  }
}

describe('the config file, whatever it holds', () => {
  it('refuses an alias inside the node it names, naming its line', () => {
    for (const text of ['a: &loop\n  b: *loop\n', 'llm:\n  model: x\nlist: &l [1, *l]\n']) {
      const error = readConfigText(text)
      expect(error).toBeInstanceOf(InvalidConfigError)
      expect((error as InvalidConfigError).issues[0]).toMatchObject({
        path: expect.stringMatching(/^line \d+, column \d+$/),
        message: expect.stringMatching(/is inside the node it names \(a cycle\)/),
      })
    }
  })

  it('refuses an alias that names no anchor, naming its line', () => {
    const error = readConfigText('llm:\n  model: x\nlist: [1, *nowhere]\n')
    expect((error as InvalidConfigError).issues).toEqual([
      { path: 'line 3, column 11', message: 'the alias *nowhere names no anchor before it' },
    ])
  })

  it('refuses an alias bomb as a file that cannot be read', () => {
    const error = readConfigText(makeYamlAliasBomb())
    expect(error).toBeInstanceOf(InvalidConfigError)
    expect((error as Error).message).toMatch(/the file cannot be read: Excessive alias count/)
  })

  it('refuses a list or a mapping as a key, naming its line, without a warning on stderr', () => {
    const warn = vi.spyOn(process, 'emitWarning')
    try {
      for (const [text, path] of [
        ['? [a, b]\n: 1\n', 'line 1, column 3'],
        ['character:\n  emotion_aliases:\n    {a: 1}: happy\n', 'line 3, column 5'],
      ] as const) {
        const error = readConfigText(text)
        expect((error as InvalidConfigError).issues).toEqual([
          { path, message: 'a key must be a name, not a list or a mapping' },
        ])
      }
      expect(warn).not.toHaveBeenCalled()
    } finally {
      warn.mockRestore()
    }
  })

  it('keeps keys as written: `null` and `~` are two keys, not one empty one', () => {
    expect(parseConfigText('aliases:\n  null: a\n  ~: b\n  1.0: c\n')).toEqual({
      aliases: { null: 'a', '~': 'b', '1.0': 'c' },
    })
  })

  it('keeps anchors, aliases and merge keys that make no cycle', () => {
    const text = `shared: &model {provider: openai, model: gpt-4o-mini}\nllm:\n  <<: *model\n  temperature: 0.5\n`
    expect(parseConfigText(text)).toEqual({
      shared: { provider: 'openai', model: 'gpt-4o-mini' },
      llm: { '<<': { provider: 'openai', model: 'gpt-4o-mini' }, temperature: 0.5 },
    })
  })

  it('ends in a config or an InvalidConfigError, for any text', () => {
    fc.assert(
      fc.property(texts, (text) => {
        const error = readConfigText(text)
        if (error === undefined) return
        expect(error, String(error)).toBeInstanceOf(InvalidConfigError)
        expect((error as InvalidConfigError).issues.length).toBeGreaterThan(0)
      }),
      { numRuns: 400 },
    )
  })
})
