import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  createMacroBudget,
  expandMacros,
  formatIdleDuration,
  type MacroValues,
  macroOutputBudgetChars,
} from './expand-macros.js'

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

describe('expandMacros on hostile templates', () => {
  const oldPattern = /\{\{\s*([a-zA-Z_]+)\s*(?::([^}]*))?\}\}/g
  /** The macros as the former regular expression found them, with a value per name. */
  function expandWithPattern(text: string, table: Record<string, string>): string {
    return text.replace(oldPattern, (whole, name: string) => table[name] ?? whole)
  }

  it('bounds what a card of `{{scenario}}` written 4,000 times over a 99,000-character scenario inserts', () => {
    const persona = '{{scenario}}'.repeat(4_000)
    const budget = createMacroBudget()
    const expanded = expandMacros(persona, { ...values, scenario: 's'.repeat(99_000) }, budget)
    expect(expanded.length).toBeLessThanOrEqual(persona.length + macroOutputBudgetChars)
    // Two scenarios fit in the bound, the rest expand to nothing.
    expect(expanded).toBe('s'.repeat(198_000))
    expect(budget.reached).toEqual({ output: true, user: false })
  })

  it('shares one bound across the expansions of a turn, and counts the user words on their own too', () => {
    const budget = createMacroBudget({ outputChars: 10, userChars: 4 })
    expect(expandMacros('{{char}}{{char}}', { ...values, char: 'abcd' }, budget)).toBe('abcdabcd')
    expect(expandMacros('{{char}}', { ...values, char: 'abcd' }, budget)).toBe('')
    expect(budget.reached.output).toBe(true)
    const user = createMacroBudget({ userChars: 4 })
    expect(
      expandMacros('{{lastUserMessage}}|{{lastUserMessage}}', { ...values, lastUserMessage: 'hey' }, user),
    ).toBe('hey|')
    expect(user.reached).toEqual({ output: false, user: true })
  })

  it('expands a scenario once however often it is named, its own macros included', () => {
    let draws = 0
    const random = () => {
      draws++
      return 0
    }
    const text = '{{scenario}}/{{scenario}}/{{scenario}}'
    expect(expandMacros(text, { ...values, random, scenario: '{{random:x,y}}{{scenario}}' })).toBe('x/x/x')
    expect(draws).toBe(1)
  })

  it('leaves text without a closing `}}` as it is (`{{a:` repeated, which a regular expression scans quadratically)', () => {
    const text = '{{a:'.repeat(25_000)
    expect(expandMacros(text, values)).toBe(text)
    expect(expandMacros(`${'{{'.repeat(10_000)}char}}`, values)).toBe(`${'{{'.repeat(9_999)}小樱`)
  })

  it('finds the same macros as the former regular expression, for any text', () => {
    const table = { char: 'C', user: 'U', lastUserMessage: 'L', scenario: 'S' }
    const fragment = fc.constantFrom(
      '{{',
      '}}',
      '{',
      '}',
      ' ',
      '\n',
      ':',
      ',',
      'a',
      'char',
      'user',
      'scenario',
      'lastUserMessage',
      'nope',
    )
    fc.assert(
      fc.property(fc.array(fragment, { maxLength: 30 }), (pieces) => {
        const text = pieces.join('')
        expect(expandMacros(text, { ...values, ...table })).toBe(expandWithPattern(text, table))
      }),
      { numRuns: 1_000 },
    )
  })

  it('never inserts more than the bound, whatever the template and values', () => {
    const fragment = fc.constantFrom(
      '{{',
      '}}',
      '{{char}}',
      '{{user}}',
      '{{scenario}}',
      '{{lastUserMessage}}',
      '{{random:',
      ',',
      'x',
      ':',
    )
    const template = fc.array(fragment, { maxLength: 200 }).map((pieces) => pieces.join(''))
    fc.assert(
      fc.property(
        template,
        template,
        fc.nat(2_000),
        fc.nat(500),
        (text, scenario, outputChars, userChars) => {
          const budget = createMacroBudget({ outputChars, userChars })
          const long = {
            ...values,
            char: 'c'.repeat(150),
            user: 'u'.repeat(90),
            lastUserMessage: 'm'.repeat(300),
          }
          const expanded = expandMacros(text, { ...long, scenario }, budget)
          expect(expanded.length).toBeLessThanOrEqual(text.length + outputChars)
          expect(budget.remaining).toBeGreaterThanOrEqual(0)
          expect(budget.remainingUserChars).toBeGreaterThanOrEqual(0)
        },
      ),
      { numRuns: 500 },
    )
  })
})
