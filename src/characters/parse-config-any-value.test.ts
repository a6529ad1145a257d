/**
 * A config comes from a file, `PUT /api/config`, `PUT /api/characters/:id` and the cluster: any
 * field of a valid one replaced by any value (another type, `null`, an object whose `toString` or
 * `valueOf` is not a function) is refused with an `InvalidConfigError` naming what is wrong, or
 * taken; never another error, which a door would answer as its own failure. What runs before the
 * schema (characters folder, language defaults) sees the value unchecked.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { InvalidConfigError } from '../shared/errors.js'
import { createLogger } from '../shared/logger.js'
import { parseConfig } from './load-config.js'

const silent = createLogger({ level: 'silent' })

const validConfig = {
  character: {
    name: 'Alice',
    persona: 'A cheerful guide of the harbour.',
    greeting: 'Welcome aboard!',
    scenario: 'A ferry at dawn.',
    language: 'auto',
    injected_history: [
      { role: 'user', content: 'Where is the lighthouse?' },
      { role: 'assistant', content: 'North of the pier.' },
    ],
    lorebook: { entries: [{ keys: ['ferry', '/tick(et)?s/i'], content: 'The ferry leaves at nine.' }] },
  },
  characters: {
    bob: { name: 'Bob', persona: 'A grumpy ferryman.', greeting: 'Tickets, please.', user_name: 'Rider' },
  },
  llm: { provider: 'openai', model: 'gpt-4o-mini', temperature: 0.4, max_tokens: 300 },
  memory: { enabled: true, per_person: true, recall_timeout_ms: 150, min_score: 0.1 },
  audience: { reply: 'every', min_gap_ms: 0 },
  sentence: { early_release: true },
  server: { port: 8080, limits: { turns_per_minute: 60 } },
}

/** Objects whose keys a careless `String(value)`, `+value`, `join` or `await` would call or trust. */
const trickyObject = fc.constantFrom<Record<string, unknown>>(
  { toString: 'not a function' },
  { valueOf: 1 },
  { toString: {}, valueOf: {} },
  { toJSON: null },
  // biome-ignore lint/suspicious/noThenProperty: a value that looks like a promise to a careless `await`.
  { then: 'not a function' },
  { length: 1e9 },
  Object.create(null) as Record<string, unknown>,
)

const anyValue = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }),
  trickyObject,
  fc.array(trickyObject, { maxLength: 2 }),
)

/** Every path of `value` to an object's field or an array's item. */
function pathsOf(value: unknown, path: (string | number)[] = []): (string | number)[][] {
  if (Array.isArray(value))
    return value.flatMap((item, index) => [[...path, index], ...pathsOf(item, [...path, index])])
  if (value && typeof value === 'object')
    return Object.entries(value).flatMap(([key, field]) => [
      [...path, key],
      ...pathsOf(field, [...path, key]),
    ])
  return []
}

function replaceAt(value: unknown, path: (string | number)[], replacement: unknown): unknown {
  if (path.length === 0) return replacement
  const [head, ...rest] = path as [string | number, ...(string | number)[]]
  const copy = (Array.isArray(value) ? [...value] : { ...(value as object) }) as Record<
    string | number,
    unknown
  >
  copy[head] = replaceAt(copy[head], rest, replacement)
  return copy
}

describe('parseConfig on a config with any field replaced by any value', () => {
  it('is valid as written', () => {
    expect(() => parseConfig(validConfig, { logger: silent, machineLanguage: 'en' })).not.toThrow()
  })

  it('takes it or refuses it with an InvalidConfigError, never another error', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...pathsOf(validConfig), []),
        anyValue,
        fc.constantFrom('en', 'zh'),
        (path, value, machineLanguage) => {
          try {
            parseConfig(replaceAt(validConfig, path, value), { logger: silent, machineLanguage })
          } catch (error) {
            expect(error, `${path.join('.')} ← ${String(JSON.stringify(value))}`).toBeInstanceOf(
              InvalidConfigError,
            )
          }
        },
      ),
      { numRuns: 1_000 },
    )
  })
})
