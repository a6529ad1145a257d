/**
 * The language of the machine charpipe runs on, for the default character of a config that names
 * none: the POSIX locale variables in their order of precedence (LC_ALL, LC_MESSAGES, LANG), or
 * where those are not the convention (Windows) the locale Intl reports. A Chinese locale (`zh_CN`,
 * `zh-TW`, …) gives `zh`, any other named language `en`.
 *
 * `C`/`POSIX`, or nothing set, names no language: that is the locale of containers, CI runners and
 * service managers, where nobody chose one. It gets `zh`, the documented defaults (PROTOCOL.md), so
 * a deployment that relied on them does not change character with its environment.
 */
import type { Language } from '../shared/language/index.js'

export interface ReadMachineLanguageOptions {
  /** @default process.env */
  environment?: Record<string, string | undefined>
  /** @default process.platform */
  platform?: string
  /** The locale Intl resolves to. @default Intl.DateTimeFormat().resolvedOptions().locale */
  intlLocale?: () => string
}

const localeVariables = ['LC_ALL', 'LC_MESSAGES', 'LANG'] as const

function languageOfLocale(locale: string): Language | undefined {
  const name = locale.trim().split(/[._@]/)[0]!.toLowerCase()
  if (name === '' || name === 'c' || name === 'posix') return undefined
  return name === 'zh' || name.startsWith('zh-') ? 'zh' : 'en'
}

export function readMachineLanguage(options: ReadMachineLanguageOptions = {}): Language {
  const environment = options.environment ?? process.env
  const set = localeVariables
    .map((name) => environment[name])
    .find((value) => value !== undefined && value !== '')
  if (set !== undefined) return languageOfLocale(set) ?? 'zh'
  if ((options.platform ?? process.platform) !== 'win32') return 'zh'
  const intlLocale = options.intlLocale ?? (() => Intl.DateTimeFormat().resolvedOptions().locale)
  return languageOfLocale(intlLocale()) ?? 'zh'
}
