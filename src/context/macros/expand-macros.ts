/**
 * Macros (SPEC R3.6): a service the assembler and the regex processor call, not a pipeline step
 * (seed 003 §3.2). One turn sees one time: everything derives from the turn's timestamp.
 * Unknown macros are left as written so a typo stays visible in the preview.
 */
import { type Language, readMacroTexts } from '../../shared/language/index.js'

export interface MacroValues {
  char: string
  user: string
  /** The turn's time, ms since the epoch. */
  timestamp: number
  /** When the last stored message was written; undefined for a new conversation. */
  lastMessageAt?: number
  lastUserMessage: string
  /** The character's scenario, for `{{scenario}}`; its own macros are expanded too. */
  scenario?: string
  /** IANA time zone for time/date/weekday; the process's zone when absent. */
  timeZone?: string
  /** Source of randomness for `{{random:…}}` (tests pass a fixed one). */
  random?: () => number
  /** The character's language: the words of `{{weekday}}` and `{{idle_duration}}`. @default 'zh' */
  language?: Language
}

// One formatter per time zone: building an Intl.DateTimeFormat costs far more than using one. The
// process's zone is keyed on TZ, which may be changed at run time.
const formats = new Map<string, Intl.DateTimeFormat>()

function partsOf(timestamp: number, timeZone: string | undefined): Record<string, string> {
  const key = timeZone === undefined ? `process:${process.env.TZ ?? ''}` : `zone:${timeZone}`
  let format = formats.get(key)
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      weekday: 'short',
      hourCycle: 'h23',
    })
    formats.set(key, format)
  }
  const parts: Record<string, string> = {}
  for (const part of format.formatToParts(timestamp)) parts[part.type] = part.value
  return parts
}

const weekdayIndex: Record<string, number> = { Sun: 0, Mon: 1, Tue: 2, Wed: 3, Thu: 4, Fri: 5, Sat: 6 }

/**
 * A duration in words, coarse to fine: `2天3小时`, `5分钟`, `刚刚`; in English `2 days 3 hours`,
 * `5 minutes`, `just now`.
 */
export function formatIdleDuration(milliseconds: number, language: Language = 'zh'): string {
  const texts = readMacroTexts(language)
  const minutes = Math.floor(milliseconds / 60_000)
  if (minutes < 1) return texts.justNow
  return texts.duration({
    days: Math.floor(minutes / 1440),
    hours: Math.floor((minutes % 1440) / 60),
    minutes: minutes % 60,
  })
}

const macroPattern = /\{\{\s*([a-zA-Z_]+)\s*(?::([^}]*))?\}\}/g

/** How many characters of the user's words macros may insert in one processor run by default. */
export const defaultMacroBudgetChars = 50_000

/**
 * A bound on what `{{lastUserMessage}}` may insert across the expansions sharing it, so a template
 * that names it many times cannot multiply the input. Past it the macro expands to nothing and
 * `exhausted` turns true (the caller logs it once).
 */
export interface MacroBudget {
  remaining: number
  exhausted: boolean
}

export function createMacroBudget(chars = defaultMacroBudgetChars): MacroBudget {
  return { remaining: chars, exhausted: false }
}

function spend(budget: MacroBudget | undefined, value: string): string {
  if (!budget) return value
  if (value.length > budget.remaining) {
    budget.exhausted = true
    return ''
  }
  budget.remaining -= value.length
  return value
}

/** Replaces the macros in `text`; `budget` bounds what the user's words add (see `MacroBudget`). */
export function expandMacros(text: string, values: MacroValues, budget?: MacroBudget): string {
  if (!text.includes('{{')) return text
  let parts: Record<string, string> | undefined
  const dateParts = () => {
    parts ??= partsOf(values.timestamp, values.timeZone)
    return parts
  }
  return text.replace(macroPattern, (whole, name: string, argument: string | undefined) => {
    switch (name) {
      case 'char':
        return values.char
      case 'user':
        return values.user
      case 'time':
        return `${dateParts().hour}:${dateParts().minute}`
      case 'date':
        return `${dateParts().year}-${dateParts().month}-${dateParts().day}`
      case 'weekday':
        return readMacroTexts(values.language ?? 'zh').weekdays[weekdayIndex[dateParts().weekday ?? ''] ?? 0]!
      case 'idle_duration':
        if (values.lastMessageAt === undefined) return readMacroTexts(values.language ?? 'zh').firstMeeting
        return formatIdleDuration(values.timestamp - values.lastMessageAt, values.language)
      case 'scenario':
        return values.scenario ? expandMacros(values.scenario, { ...values, scenario: '' }, budget) : ''
      case 'lastUserMessage':
        return spend(budget, values.lastUserMessage)
      case 'random': {
        const choices = (argument ?? '').split(',').map((choice) => choice.trim())
        if (argument === undefined || choices.length === 0) return whole
        return choices[Math.floor((values.random ?? Math.random)() * choices.length)] ?? ''
      }
      default:
        return whole
    }
  })
}
