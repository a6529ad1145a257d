/**
 * The words macros expand to, per language: `{{weekday}}` and `{{idle_duration}}` (a duration in
 * words, coarse to fine, or the first meeting when there was no earlier message).
 */
import type { Language } from './detect-text-language.js'

export interface MacroTexts {
  /** Sunday first. */
  weekdays: readonly string[]
  firstMeeting: string
  justNow: string
  /** Whole days, hours and minutes, at most two of them, the larger first; zero parts are left out. */
  duration: (parts: { days: number; hours: number; minutes: number }) => string
}

/** The two largest non-zero parts, larger first. */
function twoLargest(parts: [number, string][]): [number, string][] {
  const start = parts.findIndex(([count]) => count > 0)
  return parts.slice(start, start + 2).filter(([count]) => count > 0)
}

const zh: MacroTexts = {
  weekdays: ['星期日', '星期一', '星期二', '星期三', '星期四', '星期五', '星期六'],
  firstMeeting: '初次见面',
  justNow: '刚刚',
  duration: ({ days, hours, minutes }) =>
    twoLargest([
      [days, '天'],
      [hours, '小时'],
      [minutes, '分钟'],
    ])
      .map(([count, unit]) => `${count}${unit}`)
      .join(''),
}

const en: MacroTexts = {
  weekdays: ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'],
  firstMeeting: 'first meeting',
  justNow: 'just now',
  duration: ({ days, hours, minutes }) =>
    twoLargest([
      [days, 'day'],
      [hours, 'hour'],
      [minutes, 'minute'],
    ])
      .map(([count, unit]) => `${count} ${unit}${count === 1 ? '' : 's'}`)
      .join(' '),
}

const textsByLanguage: Record<Language, MacroTexts> = { zh, en }

export function readMacroTexts(language: Language): MacroTexts {
  return textsByLanguage[language]
}
