import { describe, expect, it } from 'vitest'
import { findQueryDates, isInWindows } from './find-query-dates.js'

const now = Date.UTC(2024, 0, 10)
const day = 86_400_000

/** Windows as ISO dates, for reading. */
function readWindows(query: string): string[] {
  return findQueryDates(query, { now }).map(
    (window) =>
      `${new Date(window.start).toISOString().slice(0, 10)}..${new Date(window.end).toISOString().slice(0, 10)}`,
  )
}

describe('findQueryDates', () => {
  it.each([
    ['What did John host in May 2023?', ['2023-04-30..2023-06-08']],
    ['Which city was Calvin at on October 3, 2023?', ['2023-10-02..2023-10-11']],
    ['What did Jon find on 1 February, 2023?', ['2023-01-31..2023-02-09']],
    ['a modification on 1st september 2023', ['2023-08-31..2023-09-09']],
    ['What happened in 2022?', ['2021-12-31..2023-01-08']],
    ['2023-05-07 plans', ['2023-05-06..2023-05-15']],
    ['2023年5月3日我们去哪了', ['2023-05-02..2023-05-11']],
    ['2022年去了哪里', ['2021-12-31..2023-01-08']],
  ])('%s → %j', (query, windows) => {
    expect(readWindows(query)).toEqual(windows)
  })

  it('reads a month or day without a year as that period in each recent year', () => {
    const windows = readWindows('Where did we go in May?')
    expect(windows).toContain('2023-04-30..2023-06-08')
    expect(windows).toContain('2015-04-30..2015-06-08')
    expect(windows).toHaveLength(11)
    expect(readWindows('5月去爬山')).toEqual(windows)
    expect(readWindows('on March 31st')).toContain('2023-03-30..2023-04-08')
  })

  it('finds no date in words that only look like one', () => {
    expect(readWindows('You may like it')).toEqual([])
    expect(readWindows('I have 2 cats and 12 fish')).toEqual([])
    expect(readWindows('room 3000')).toEqual([])
  })

  it('falls back to the month when the day does not exist', () => {
    expect(readWindows('born on 31 February 2023')).toEqual(['2023-01-31..2023-03-08'])
  })

  it('merges overlapping windows and sets how long after a period a memory may tell of it', () => {
    expect(readWindows('on 3 May 2023 or 5 May 2023')).toEqual(['2023-05-02..2023-05-13'])
    const [window] = findQueryDates('on 3 May 2023', { now, reportDays: 0 })
    expect(window).toEqual({ start: Date.UTC(2023, 4, 2), end: Date.UTC(2023, 4, 4) })
  })
})

describe('isInWindows', () => {
  const windows = [
    { start: 10 * day, end: 20 * day },
    { start: 30 * day, end: 40 * day },
  ]
  it('includes the start and excludes the end', () => {
    expect(isInWindows(10 * day, windows)).toBe(true)
    expect(isInWindows(20 * day, windows)).toBe(false)
    expect(isInWindows(35 * day, windows)).toBe(true)
    expect(isInWindows(5 * day, windows)).toBe(false)
    expect(isInWindows(45 * day, windows)).toBe(false)
    expect(isInWindows(0, [])).toBe(false)
  })
})
