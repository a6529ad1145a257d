/**
 * A character's language: set (`character.language: zh | en`) or, with `auto`, read from its own
 * text: persona, greeting and scenario together, or the name when they say nothing. A character whose
 * text says nothing at all speaks Chinese, as charpipe always did.
 */
import { detectTextLanguage, type Language } from './detect-text-language.js'
import { readScaffoldingTexts } from './scaffolding-texts.js'

export type LanguageSetting = 'auto' | Language

/** The fields of a character config the language is read from. */
export interface LanguageSource {
  language?: LanguageSetting
  name?: string
  persona?: string
  greeting?: string
  scenario?: string
  user_name?: string
}

const fallbackLanguage: Language = 'zh'

const isText = (value: unknown): value is string => typeof value === 'string'

// A config object is replaced on reload, never changed, so its language can be kept.
const resolved = new WeakMap<LanguageSource, Language>()

export function resolveCharacterLanguage(character: LanguageSource): Language {
  if (character.language === 'zh' || character.language === 'en') return character.language
  const known = resolved.get(character)
  if (known) return known
  // Also read from a block not yet validated (language defaults are filled in before the schema
  // runs): a field of another type says nothing about the language, and its error is the schema's.
  const text = [character.persona, character.greeting, character.scenario].filter(isText).join('\n')
  const name = isText(character.name) ? character.name : ''
  const language = detectTextLanguage(text) ?? detectTextLanguage(name) ?? fallbackLanguage
  resolved.set(character, language)
  return language
}

/** `{{user}}`: the configured `user_name`, or the language's word for the user (User, 用户). */
export function resolveUserName(character: LanguageSource): string {
  return character.user_name || readScaffoldingTexts(resolveCharacterLanguage(character)).userName
}
