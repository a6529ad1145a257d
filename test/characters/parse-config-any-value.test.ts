/**
 * A config comes from a file, `PUT /api/config`, `PUT /api/characters/:id` and the cluster: a valid
 * one with any field replaced by any value (test/support/fuzzed-inputs.ts: another type, `null`, an
 * object whose `toString` or `valueOf` is not a function, a huge string, unknown fields) is refused
 * with an `InvalidConfigError` naming what is wrong, or taken; never another error, which a door
 * would answer as its own failure. What runs before the schema (characters folder, language
 * defaults) sees the value unchecked. Texts that are no JSON, or nest deeper than a request body
 * may, never reach `parseConfig` and are left out.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { parseConfig } from '../../src/characters/load-config.js'
import { InvalidConfigError } from '../../src/shared/errors.js'
import { isJsonNestedTooDeep } from '../../src/shared/is-json-nested-too-deep.js'
import { createLogger } from '../../src/shared/logger.js'
import { fuzzedText } from '../support/fuzzed-inputs.js'

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

/** The generated text as the value a door hands `parseConfig`, or undefined when no door would. */
function readBody(text: string): { value: unknown } | undefined {
  if (isJsonNestedTooDeep(text)) return undefined
  try {
    return { value: JSON.parse(text) }
  } catch {
    return undefined
  }
}

describe('parseConfig on a config with any field replaced by any value', () => {
  it('is valid as written', () => {
    expect(() => parseConfig(validConfig, { logger: silent, machineLanguage: 'en' })).not.toThrow()
  })

  it('takes it or refuses it with an InvalidConfigError, never another error', () => {
    let parsed = 0
    fc.assert(
      fc.property(fuzzedText(validConfig), fc.constantFrom('en', 'zh'), (sent, machineLanguage) => {
        const body = readBody(sent.text)
        if (!body) return
        parsed++
        try {
          parseConfig(body.value, { logger: silent, machineLanguage })
        } catch (error) {
          expect(error, `${sent.kind}: ${sent.text.slice(0, 300)}`).toBeInstanceOf(InvalidConfigError)
        }
      }),
      { numRuns: 1_000 },
    )
    // Most cases are JSON a door would pass on: the property is not vacuous.
    expect(parsed).toBeGreaterThan(500)
  })
})
