import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { createReplyParser } from './create-reply-parser.js'
import { createTestOptions, runReply, splitAt } from './reply-test-helpers.js'
import type { ReplyParserOptions } from './types.js'

/** Pieces that exercise every sentence rule; random sequences of them read like (odd) model output. */
const fragments = [
  '你好',
  '今天天气真好',
  '。',
  '！',
  '？',
  '？！',
  '；',
  '，',
  '、',
  '：',
  '\n',
  ' ',
  '  ',
  '…',
  '……',
  '...',
  '～',
  '“',
  '”',
  '「',
  '」',
  '（',
  '）',
  '(',
  ')',
  '"',
  "'",
  'Hello world',
  '.',
  '!',
  '?',
  ';',
  ',',
  '3.14',
  '1,000',
  'v2.5.1',
  'Mr.',
  'e.g.',
  'U.S.',
  '1. ',
  'https://example.com/a.b?x=1',
  '😊',
  '**重点**',
  '`code`',
  '[开心]',
  '[难过]',
  '[不存在]',
  '<|ACT {"emotion":"happy"}|>',
  '<|x',
  '\\',
  '{',
  '}',
]

const textArbitrary = fc
  .array(fc.constantFrom(...fragments), { maxLength: 40 })
  .map((parts) => parts.join(''))

const optionsArbitrary = fc.record({
  format: fc.constantFrom('json' as const, 'prefix' as const, 'auto' as const, 'plain' as const),
  shape: fc.constantFrom('json', 'json-text-first', 'prefix', 'plain', 'fenced'),
  min_chars: fc.constantFrom(0, 0, 3, 8),
  max_chars: fc.constantFrom(0, 0, 6, 15),
  first_clause_chars: fc.constantFrom(0, 0, 4),
  inline_emotion_tags: fc.boolean(),
})

function wrap(text: string, shape: string): string {
  switch (shape) {
    case 'json':
      return JSON.stringify({ emotion: '开心', text })
    case 'json-text-first':
      return JSON.stringify({ text, emotion: 'sad' })
    case 'prefix':
      return `{"emotion":"惊讶"}\n${text}`
    case 'fenced':
      return `\`\`\`json\n${JSON.stringify({ emotion: '害羞', text })}\n\`\`\``
    default:
      return text
  }
}

const cutsArbitrary = fc.array(fc.nat({ max: 2000 }), { maxLength: 30 })

describe('reply parser properties', () => {
  it('any split of the same output into chunks gives the same events', () => {
    fc.assert(
      fc.property(textArbitrary, optionsArbitrary, cutsArbitrary, (text, settings, cuts) => {
        const { format, shape, ...rest } = settings
        const output = wrap(text, shape)
        const options = createTestOptions(format, { ...rest, early_release: false })
        const whole = runReply([output], options)
        const split = runReply(splitAt(output, cuts), options)
        expect(split.structure).toEqual(whole.structure)
        expect(split.display).toBe(whole.display)
        expect(whole.done?.text).toBe(whole.display)
        expect(whole.indexes).toEqual(whole.indexes.map((_, index) => index))
      }),
      { numRuns: 400 },
    )
  })

  it('plain text with no filters: the display is what the sentences cover plus whitespace', () => {
    fc.assert(
      fc.property(
        textArbitrary,
        fc.record({
          min_chars: fc.constantFrom(0, 4),
          max_chars: fc.constantFrom(0, 10),
          first_clause_chars: fc.constantFrom(0, 3),
        }),
        cutsArbitrary,
        (text, settings, cuts) => {
          const options: ReplyParserOptions = { ...createTestOptions('plain', settings), speechFilters: [] }
          const run = runReply(splitAt(text, cuts), options)
          expect(run.display).toBe(text)
          let cursor = 0
          for (const [sentence] of run.sentences) {
            const found = text.indexOf(sentence, cursor)
            expect(found).toBeGreaterThanOrEqual(cursor)
            expect(text.slice(cursor, found).trim()).toBe('')
            cursor = found + sentence.length
          }
          expect(text.slice(cursor).trim()).toBe('')
        },
      ),
      { numRuns: 400 },
    )
  })

  it('random strings and bytes never throw, in any format and with every option on', () => {
    const anyText = fc.oneof(
      fc.string({ unit: 'binary', maxLength: 200 }),
      fc
        .array(fc.integer({ min: 0, max: 0xffff }), { maxLength: 200 })
        .map((codes) => String.fromCharCode(...codes)),
      fc.uint8Array({ maxLength: 300 }).map((bytes) => new TextDecoder().decode(bytes)),
      textArbitrary.map((text) => wrap(text, 'json').slice(0, -3)),
    )
    fc.assert(
      fc.property(anyText, optionsArbitrary, cutsArbitrary, (text, settings, cuts) => {
        const { format, shape: _shape, ...rest } = settings
        const options: ReplyParserOptions = {
          ...createTestOptions(format, rest),
          speechFilters: ['markdown', 'emoji', 'stage_directions'],
        }
        const parser = createReplyParser(options)
        const events = splitAt(text, cuts).flatMap((chunk) => parser.push(chunk))
        events.push(...parser.end())
        expect(events.at(-1)?.type).toBe('done')
        expect(events.filter((event) => event.type === 'done')).toHaveLength(1)
      }),
      { numRuns: 500 },
    )
  })
})
