/**
 * The page speaks one language at a time, Chinese or English. The choice is kept in localStorage and
 * defaults from the browser's language. Three kinds of text are translated here:
 * - the page's own strings (`translate('chat.send')`), one dictionary per language in
 *   `page-messages.ts`;
 * - config field labels and descriptions: English descriptions come from the zod schema's
 *   `.describe()` texts (through `config.schema.json`), Chinese ones from the table in
 *   `field-texts.ts`, keyed by field path, so the schema stays the one source of what a field means;
 * - validation messages from the server, which stay English and get a translated lead.
 * Panels read the language at render time; the app re-renders everything when it changes.
 */
import { fieldTexts } from './field-texts.js'
import { type MessageKey, pageMessages } from './page-messages.js'

export type Language = 'zh' | 'en'
export const languages: readonly Language[] = ['zh', 'en']

const storageKey = 'charpipe.language'

export interface DetectLanguageOptions {
  stored?: string | null
  /** `navigator.languages`, best first. */
  browserLanguages?: readonly string[]
}

/** The stored choice when there is one, else Chinese for a browser that prefers Chinese, else English. */
export function detectLanguage(options: DetectLanguageOptions): Language {
  if (options.stored === 'zh' || options.stored === 'en') return options.stored
  const preferred = options.browserLanguages?.[0]?.toLowerCase() ?? ''
  return preferred.startsWith('zh') ? 'zh' : 'en'
}

function readInitialLanguage(): Language {
  let stored: string | null = null
  try {
    stored = globalThis.localStorage?.getItem(storageKey) ?? null
  } catch {
    // Storage can be off; the browser's language decides then.
  }
  const browser = globalThis.navigator
  return detectLanguage({
    stored,
    browserLanguages: browser ? (browser.languages?.length ? browser.languages : [browser.language]) : [],
  })
}

let currentLanguage: Language = readInitialLanguage()
const listeners = new Set<(language: Language) => void>()

export function getLanguage(): Language {
  return currentLanguage
}

/** Switches the page's language, remembers it and tells the listeners (the app re-renders). */
export function setLanguage(language: Language): void {
  currentLanguage = language
  try {
    globalThis.localStorage?.setItem(storageKey, language)
  } catch {
    // Storage can be off; the choice then lasts until the page reloads.
  }
  if (globalThis.document) document.documentElement.lang = language === 'zh' ? 'zh-CN' : 'en'
  for (const listener of listeners) listener(language)
}

export function onLanguageChange(listener: (language: Language) => void): () => void {
  listeners.add(listener)
  return () => listeners.delete(listener)
}

export type MessageParameters = Record<string, string | number>

/** A page string in the current language; `{name}` placeholders are filled from `parameters`. */
export function translate(key: MessageKey, parameters: MessageParameters = {}): string {
  const template = pageMessages[currentLanguage][key] ?? pageMessages.en[key] ?? key
  return template.replace(/\{(\w+)\}/g, (whole, name: string) =>
    name in parameters ? String(parameters[name]) : whole,
  )
}

/** `llm.fallbacks.0.provider` → `llm.fallbacks.*.provider`: list rows share one entry. */
export function toFieldTextPath(path: string): string {
  return path.replace(/\.\d+(?=\.|$)/g, '.*')
}

export interface FieldText {
  label: string
  /** The description to show; undefined when there is none. */
  hint?: string
}

export interface DescribeFieldOptions {
  /** Dotted path of the field (`character.persona`, `pipeline.processors.regex-processor.rules`). */
  path: string
  /** The English description the schema or the server gives. */
  description?: string
  /** The label the server gives (processor names and option labels), used when the table has none. */
  label?: string
}

/** The label and description of a config field in the current language. */
export function describeField(options: DescribeFieldOptions): FieldText {
  const entry = fieldTexts[toFieldTextPath(options.path)]
  const key = options.path.split('.').pop() ?? options.path
  if (currentLanguage === 'zh') {
    return { label: entry?.zh ?? options.label ?? key, hint: entry?.zhHint ?? options.description }
  }
  return { label: entry?.en ?? options.label ?? key, hint: options.description }
}

/** The label of a select option in the current language; `label` is the server's (English). */
export function describeOption(options: { path: string; value: unknown; label: string }): string {
  if (currentLanguage !== 'zh') return options.label
  return fieldTexts[toFieldTextPath(options.path)]?.zhOptions?.[String(options.value)] ?? options.label
}

export interface ValidationIssue {
  path: string
  message: string
}

/** A validation message from the server (English) with a lead in the page's language. */
export function describeIssue(issue: ValidationIssue): string {
  const where = issue.path || translate('issue.wholeConfig')
  return translate('issue.lead', { path: where, message: issue.message })
}
