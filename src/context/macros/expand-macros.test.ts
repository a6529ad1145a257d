import { describe, expect, it } from 'vitest'
import { expandMacros, formatIdleDuration, type MacroValues } from './expand-macros.js'

const values: MacroValues = {
  char: '小樱',
  user: '阿明',
  // Monday 2025-01-06 12:30 in Shanghai.
  timestamp: Date.UTC(2025, 0, 6, 4, 30),
  lastMessageAt: Date.UTC(2025, 0, 6, 2, 15),
  lastUserMessage: '早上好',
  timeZone: 'Asia/Shanghai',
  random: () => 0.5,
}

describe('expandMacros', () => {
  it('expands the macros of R3.6', () => {
    expect(
      expandMacros(
        '{{char}}/{{user}}/{{time}}/{{date}}/{{weekday}}/{{idle_duration}}/{{random:a,b,c}}/{{lastUserMessage}}',
        values,
      ),
    ).toBe('小樱/阿明/12:30/2025-01-06/星期一/2小时15分钟/b/早上好')
  })

  it('leaves unknown macros visible and says when there is no earlier message', () => {
    expect(expandMacros('{{nope}} {{ char }}', values)).toBe('{{nope}} 小樱')
    expect(expandMacros('{{idle_duration}}', { ...values, lastMessageAt: undefined })).toBe('初次见面')
  })

  it('formats durations coarse to fine', () => {
    expect(formatIdleDuration(30_000)).toBe('刚刚')
    expect(formatIdleDuration(5 * 60_000)).toBe('5分钟')
    expect(formatIdleDuration(26 * 3_600_000)).toBe('1天2小时')
    expect(formatIdleDuration(30_000, 'en')).toBe('just now')
    expect(formatIdleDuration(60_000, 'en')).toBe('1 minute')
    expect(formatIdleDuration(26 * 3_600_000, 'en')).toBe('1 day 2 hours')
    expect(formatIdleDuration(24 * 3_600_000 + 5 * 60_000)).toBe('1天')
    expect(formatIdleDuration(24 * 3_600_000 + 5 * 60_000, 'en')).toBe('1 day')
    expect(formatIdleDuration(2 * 3_600_000 + 60_000)).toBe('2小时1分钟')
    expect(formatIdleDuration(2 * 3_600_000, 'en')).toBe('2 hours')
  })

  it("speaks the character's language in weekdays and durations", () => {
    const english = { ...values, language: 'en' as const }
    expect(expandMacros('{{weekday}}/{{idle_duration}}', english)).toBe('Monday/2 hours 15 minutes')
    expect(expandMacros('{{idle_duration}}', { ...english, lastMessageAt: undefined })).toBe('first meeting')
  })
})
