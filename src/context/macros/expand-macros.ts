/**
 * Macros (SPEC R3.6): a service the assembler and the regex processor call, not a pipeline step
 * (seed 003 §3.2). One turn sees one time: everything derives from the turn's timestamp.
 * Unknown macros are left as written so a typo stays visible in the preview. A card is hostile
 * input: what macros insert is bounded (`macroOutputBudgetChars`) and the scan is linear.
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

/**
 * Characters all macros together may insert in one budget's expansions (one turn's assembly, or one
 * call without a budget). A card is hostile input: a persona of `{{scenario}}` written 4,000 times
 * over a 99,000-character scenario would otherwise make a prompt of 400 million characters. Past the
 * bound a macro expands to nothing, so an expanded text is at most its template plus this.
 */
export const macroOutputBudgetChars = 200_000

/** How many characters of the user's words macros may insert in one processor run by default. */
export const defaultMacroBudgetChars = 50_000

/**
 * What macros may still insert across the expansions sharing it. A value that does not fit expands
 * to nothing and marks the bound it reached (the caller logs it once).
 */
export interface MacroBudget {
  /** Characters all macros may still insert. */
  remaining: number
  /** Characters of the user's words (`{{lastUserMessage}}`) that may still be inserted. */
  remainingUserChars: number
  /** The bounds a value did not fit in. */
  reached: { output: boolean; user: boolean }
  /** The scenario, expanded once for all its `{{scenario}}`s (set on first use). */
  scenario?: string
}

export interface CreateMacroBudgetOptions {
  /** @default macroOutputBudgetChars */
  outputChars?: number
  /** @default defaultMacroBudgetChars */
  userChars?: number
}

export function createMacroBudget(options: CreateMacroBudgetOptions = {}): MacroBudget {
  return {
    remaining: options.outputChars ?? macroOutputBudgetChars,
    remainingUserChars: options.userChars ?? defaultMacroBudgetChars,
    reached: { output: false, user: false },
  }
}

function spend(budget: MacroBudget, value: string, userWords = false): string {
  if (userWords && value.length > budget.remainingUserChars) {
    budget.reached.user = true
    return ''
  }
  if (value.length > budget.remaining) {
    budget.reached.output = true
    return ''
  }
  budget.remaining -= value.length
  if (userWords) budget.remainingUserChars -= value.length
  return value
}

/** A macro's value, counted unless it is the macro left as written (template text, not an insertion). */
function insertValue(budget: MacroBudget, value: string, whole: string): string {
  return value === whole ? whole : spend(budget, value)
}

interface Macro {
  name: string
  argument: string | undefined
  /** Index just past the closing `}}`. */
  end: number
}

const isNameCode = (code: number) => (code >= 65 && code <= 90) || (code >= 97 && code <= 122) || code === 95
const isSpace = (text: string, index: number) => /\s/.test(text[index]!)

/**
 * The macro `{{ name }}` or `{{name:argument}}` starting at `start`, where `close` is the first `}`
 * after the opening braces; undefined when the text there is not one. Only the name and the spaces
 * around it are read on a miss, and they hold no `{`, so no character is read again for a later
 * start: the whole scan stays linear (a regular expression over `{{a:{{a:{{a:…` is quadratic).
 */
function readMacro(text: string, start: number, close: number): Macro | undefined {
  if (text.charCodeAt(close + 1) !== 125) return undefined
  let index = start + 2
  while (index < close && isSpace(text, index)) index++
  const nameStart = index
  while (index < close && isNameCode(text.charCodeAt(index))) index++
  if (index === nameStart) return undefined
  const name = text.slice(nameStart, index)
  while (index < close && isSpace(text, index)) index++
  if (index === close) return { name, argument: undefined, end: close + 2 }
  if (text[index] !== ':') return undefined
  return { name, argument: text.slice(index + 1, close), end: close + 2 }
}

function expandScenario(values: MacroValues, budget: MacroBudget): string {
  budget.scenario ??= values.scenario
    ? expandMacros(values.scenario, { ...values, scenario: '' }, budget)
    : ''
  return budget.scenario
}

/**
 * Replaces the macros in `text`. What they insert is bounded by `budget` (see `MacroBudget`; a fresh
 * default one when none is given), and the scan is linear in the text whatever it holds.
 */
export function expandMacros(text: string, values: MacroValues, budget = createMacroBudget()): string {
  if (!text.includes('{{')) return text
  let parts: Record<string, string> | undefined
  const dateParts = () => {
    parts ??= partsOf(values.timestamp, values.timeZone)
    return parts
  }
  const readValue = (macro: Macro, whole: string): string => {
    switch (macro.name) {
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
        return expandScenario(values, budget)
      case 'random': {
        if (macro.argument === undefined) return whole
        const choices = macro.argument.split(',').map((choice) => choice.trim())
        return choices[Math.floor((values.random ?? Math.random)() * choices.length)] ?? ''
      }
      default:
        return whole
    }
  }
  const pieces: string[] = []
  let copied = 0
  let search = 0
  // The first `}` at or after a start's name: it only moves forward, so finding it is linear too.
  let close = -1
  for (;;) {
    const start = text.indexOf('{{', search)
    if (start < 0) break
    if (close < start + 2) close = text.indexOf('}', start + 2)
    if (close < 0) break
    const macro = readMacro(text, start, close)
    if (!macro) {
      search = start + 1
      continue
    }
    const whole = text.slice(start, macro.end)
    const value =
      macro.name === 'lastUserMessage'
        ? spend(budget, values.lastUserMessage, true)
        : insertValue(budget, readValue(macro, whole), whole)
    pieces.push(text.slice(copied, start), value)
    copied = search = macro.end
  }
  if (copied === 0) return text
  pieces.push(text.slice(copied))
  return pieces.join('')
}
