/**
 * Dates a search names ("in May 2023", "on 3 October", "October 3, 2023", "in 2022", "2023年5月3日"),
 * as time windows a memory's own time can fall in. A memory keeps the time it was said, and what
 * it tells happened then or shortly before ("yesterday", "last week"): a window runs from a day
 * before the named period to `reportDays` after it. A month or day named without a year stands
 * for that period in each of the last `yearsBack` years and the next one.
 *
 * Times are read in UTC, as the store keeps them. A month name alone counts only after a
 * preposition ("in May", "since June"), so "may" the verb is never a date.
 */

export interface TimeWindow {
  /** Milliseconds since the epoch, inclusive. */
  start: number
  /** Milliseconds since the epoch, exclusive. */
  end: number
}

export interface FindQueryDatesOptions {
  /** Now, milliseconds since the epoch: sets the years a date without one may mean. */
  now: number
  /** Days after the named period a memory may still tell of it. @default 7 */
  reportDays?: number
  /** Years before now a date without a year may mean. @default 9 */
  yearsBack?: number
}

const dayMs = 86_400_000

const monthNames: Record<string, number> = {
  january: 0,
  jan: 0,
  february: 1,
  feb: 1,
  march: 2,
  mar: 2,
  april: 3,
  apr: 3,
  may: 4,
  june: 5,
  jun: 5,
  july: 6,
  jul: 6,
  august: 7,
  aug: 7,
  september: 8,
  sept: 8,
  sep: 8,
  october: 9,
  oct: 9,
  november: 10,
  nov: 10,
  december: 11,
  dec: 11,
}

const month = `(${Object.keys(monthNames).join('|')})\\.?`
const day = '(\\d{1,2})(?:st|nd|rd|th)?'
const year = '((?:19|20)\\d{2})'
const preposition = '(?:in|on|of|since|during|until|till|by|before|after|early|late|mid|around|through)'

interface DatePattern {
  pattern: RegExp
  read(match: RegExpExecArray): { year?: number; month?: number; day?: number }
}

/** Longest forms first: a phrase is consumed by the first pattern that matches it. */
const patterns: DatePattern[] = [
  {
    pattern: /\b((?:19|20)\d{2})-(\d{2})-(\d{2})\b/giu,
    read: (match) => ({ year: Number(match[1]), month: Number(match[2]) - 1, day: Number(match[3]) }),
  },
  {
    pattern: new RegExp(`\\b${day}\\s+(?:of\\s+)?${month},?\\s+${year}\\b`, 'giu'),
    read: (match) => ({ day: Number(match[1]), month: readMonth(match[2]), year: Number(match[3]) }),
  },
  {
    pattern: new RegExp(`\\b${month}\\s+${day},?\\s+${year}\\b`, 'giu'),
    read: (match) => ({ month: readMonth(match[1]), day: Number(match[2]), year: Number(match[3]) }),
  },
  {
    pattern: new RegExp(`\\b${month},?\\s+${year}\\b`, 'giu'),
    read: (match) => ({ month: readMonth(match[1]), year: Number(match[2]) }),
  },
  {
    pattern: new RegExp(`\\b${day}\\s+(?:of\\s+)?${month}(?![\\p{L}])`, 'giu'),
    read: (match) => ({ day: Number(match[1]), month: readMonth(match[2]) }),
  },
  {
    pattern: new RegExp(`\\b${month}\\s+${day}(?!\\d)\\b`, 'giu'),
    read: (match) => ({ month: readMonth(match[1]), day: Number(match[2]) }),
  },
  {
    pattern: new RegExp(`(?<=\\b${preposition}\\s+(?:the\\s+)?)${month}(?![\\p{L}])`, 'giu'),
    read: (match) => ({ month: readMonth(match[1]) }),
  },
  {
    pattern: /(?:((?:19|20)\d{2})\s*年\s*)?(\d{1,2})\s*月(?:\s*(\d{1,2})\s*[日号])?/gu,
    read: (match) => ({
      year: match[1] ? Number(match[1]) : undefined,
      month: Number(match[2]) - 1,
      day: match[3] ? Number(match[3]) : undefined,
    }),
  },
  {
    pattern: /((?:19|20)\d{2})\s*年/gu,
    read: (match) => ({ year: Number(match[1]) }),
  },
  {
    pattern: /\b((?:19|20)\d{2})\b/gu,
    read: (match) => ({ year: Number(match[1]) }),
  },
]

function readMonth(name: string | undefined): number {
  return monthNames[(name ?? '').toLowerCase()] ?? -1
}

/** Sorted, disjoint windows; none when the query names no date. */
export function findQueryDates(query: string, options: FindQueryDatesOptions): TimeWindow[] {
  const reportDays = options.reportDays ?? 7
  const yearsBack = options.yearsBack ?? 9
  const nowYear = new Date(options.now).getUTCFullYear()
  const windows: TimeWindow[] = []
  let rest = query
  for (const { pattern, read } of patterns) {
    // A phrase is taken out once read, so "3 May 2023" is not read again as "May 2023".
    rest = rest.replace(pattern, (...groups) => {
      const match = groups.slice(0, -2) as unknown as RegExpExecArray
      const date = read(match)
      const years =
        date.year === undefined
          ? Array.from({ length: yearsBack + 2 }, (_, index) => nowYear - yearsBack + index)
          : [date.year]
      const found = years.flatMap((each) => makeWindow({ ...date, year: each }, reportDays))
      if (found.length === 0) return groups[0] as string
      windows.push(...found)
      return ' '
    })
  }
  return mergeWindows(windows)
}

/** The period a date names, widened by a day before and `reportDays` after; none when invalid. */
function makeWindow(date: { year: number; month?: number; day?: number }, reportDays: number): TimeWindow[] {
  const { year: yearNumber, month: monthIndex, day: dayNumber } = date
  if (monthIndex !== undefined && (monthIndex < 0 || monthIndex > 11)) return []
  let start: number
  let end: number
  if (monthIndex === undefined) {
    start = Date.UTC(yearNumber, 0, 1)
    end = Date.UTC(yearNumber + 1, 0, 1)
  } else if (dayNumber === undefined) {
    start = Date.UTC(yearNumber, monthIndex, 1)
    end = Date.UTC(yearNumber, monthIndex + 1, 1)
  } else {
    start = Date.UTC(yearNumber, monthIndex, dayNumber)
    // 31 February is no date: Date.UTC would roll it into March.
    if (new Date(start).getUTCMonth() !== monthIndex || dayNumber < 1) return []
    end = start + dayMs
  }
  return [{ start: start - dayMs, end: end + reportDays * dayMs }]
}

function mergeWindows(windows: TimeWindow[]): TimeWindow[] {
  const sorted = [...windows].sort((left, right) => left.start - right.start)
  const merged: TimeWindow[] = []
  for (const window of sorted) {
    const last = merged[merged.length - 1]
    if (last && window.start <= last.end) last.end = Math.max(last.end, window.end)
    else merged.push({ ...window })
  }
  return merged
}

/** Whether `time` falls in one of the (sorted, disjoint) windows. */
export function isInWindows(time: number, windows: readonly TimeWindow[]): boolean {
  for (const window of windows) {
    if (time < window.start) return false
    if (time < window.end) return true
  }
  return false
}
