/**
 * Language-dependent defaults, put into a config before the schema fills in the rest: a config
 * without a `character` gets the default character of the machine's language (`小助手` for a Chinese
 * locale, exactly the documented defaults; `Assistant` for any other language), and a character
 * block in English (its `language`, or its text read with `auto`) that sets no emotions gets the
 * English ones, so its events carry `happy` and `calm` rather than `开心` and `平静`. A block that
 * sets `emotions` or `default_emotion` keeps its own; a Chinese block is left to the schema.
 */

import type { Language } from '../shared/language/index.js'
import { fillEmotionDefaults } from '../shared/language/index.js'

/** The default character of an English machine (the schema's defaults are the Chinese one). */
export const englishDefaultCharacter = { name: 'Assistant' } as const

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

export function applyLanguageDefaults(raw: unknown, machineLanguage: Language): unknown {
  if (!isPlainObject(raw)) return raw
  const given = raw.character
  const character =
    given === undefined && machineLanguage === 'en'
      ? fillEmotionDefaults({ ...englishDefaultCharacter })
      : isPlainObject(given)
        ? fillEmotionDefaults(given)
        : given
  const characters = isPlainObject(raw.characters)
    ? Object.fromEntries(
        Object.entries(raw.characters).map(([id, block]) => [
          id,
          isPlainObject(block) ? fillEmotionDefaults(block) : block,
        ]),
      )
    : raw.characters
  return {
    ...raw,
    ...(character === undefined ? {} : { character }),
    ...(characters === undefined ? {} : { characters }),
  }
}
