import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { createReplyParser } from './create-reply-parser.js'
import { silenceSignal } from './create-silence-gate.js'
import { createTestOptions, runReply, splitAt, splitEveryUnit } from './reply-test-helpers.js'
import type { ReplyEvent, ReplyParserOptions } from './types.js'

/** Pieces of replies that come near the signal, and ones that are plainly speech. */
const fragments = [
  silenceSignal,
  '[silence',
  '[sil',
  'ence]',
  '[',
  ']',
  's',
  ' ',
  '\n',
  '\t',
  '　',
  '[开心]',
  '嗯。',
  'Hello.',
  '好的，',
  '"',
  '\\',
]

const replyArbitrary = fc.oneof(
  fc.array(fc.constantFrom(...fragments), { maxLength: 12 }).map((parts) => parts.join('')),
  // Exactly silence, with whitespace around it: the case that must release nothing.
  fc
    .tuple(fc.constantFrom('', ' ', '\n', ' \n\t'), fc.constantFrom('', ' ', '\n', '\n\n'))
    .map(([before, after]) => `${before}${silenceSignal}${after}`),
)

const formatArbitrary = fc.constantFrom('json' as const, 'prefix' as const, 'auto' as const, 'plain' as const)
const cutsArbitrary = fc.array(fc.nat({ max: 80 }), { maxLength: 20 })

/** The model's whole output for a reply text in a format (auto gets either envelope, or none). */
function wrap(text: string, format: ReplyParserOptions['replyFormat'], variant: number): string {
  if (format === 'json' || (format === 'auto' && variant === 0))
    return JSON.stringify({ emotion: '开心', text })
  if (format === 'prefix' || (format === 'auto' && variant === 1)) return `{"emotion":"开心"}\n${text}`
  return text
}

/** Whether the text could still grow into a silent reply. */
function couldBeSilence(text: string): boolean {
  const start = text.trimStart()
  if (start.length <= silenceSignal.length) return silenceSignal.startsWith(start)
  return start.startsWith(silenceSignal) && start.slice(silenceSignal.length).trim() === ''
}

function released(events: readonly ReplyEvent[]): string {
  return events.map((event) => (event.type === 'display-delta' ? event.text : '')).join('')
}

describe('silence in the reply parser', () => {
  it('any chunking of any reply releases the reply, or nothing when it is exactly silence', () => {
    fc.assert(
      fc.property(
        replyArbitrary,
        formatArbitrary,
        fc.nat({ max: 2 }),
        fc.boolean(),
        cutsArbitrary,
        (text, format, variant, tags, cuts) => {
          const output = wrap(text, format, variant)
          const base = createTestOptions(format, { inline_emotion_tags: tags, early_release: false })
          const speaking = runReply([output], base)
          const run = runReply(splitAt(output, cuts), { ...base, silence: true })
          const silent = text.trim() === silenceSignal
          const done = run.events.at(-1) as Extract<ReplyEvent, { type: 'done' }>
          expect(done.silent === true).toBe(silent)
          if (silent) {
            expect(run.display).toBe('')
            expect(run.sentences).toEqual([])
            expect(done.text).toBe('')
          } else {
            expect(run.display).toBe(speaking.display)
            expect(run.sentences).toEqual(speaking.sentences)
          }
        },
      ),
      { numRuns: 600 },
    )
  })

  it('nothing is released while the reply so far could still be silence', () => {
    fc.assert(
      fc.property(replyArbitrary, fc.boolean(), cutsArbitrary, (text, tags, cuts) => {
        const options = createTestOptions('plain', { inline_emotion_tags: tags })
        const parser = createReplyParser({ ...options, silence: true })
        const speaking = createReplyParser(options)
        let sent = ''
        for (const chunk of splitAt(text, cuts)) {
          sent += chunk
          const events = parser.push(chunk)
          speaking.push(chunk)
          if (couldBeSilence(sent)) {
            expect(
              events.filter((event) => event.type === 'display-delta' || event.type === 'sentence'),
            ).toEqual([])
          } else {
            // Released at once: the moment it cannot be silence, all of it is out, as without the gate.
            expect(parser.displayText).toBe(speaking.displayText)
          }
        }
      }),
      { numRuns: 600 },
    )
  })

  it('silence split one code unit a chunk, in each format, releases nothing and says silent', () => {
    for (const [format, variant] of [
      ['json', 0],
      ['prefix', 0],
      ['auto', 0],
      ['auto', 1],
      ['auto', 2],
      ['plain', 0],
    ] as const) {
      const run = runReply(splitEveryUnit(wrap(` ${silenceSignal}\n`, format, variant)), {
        ...createTestOptions(format),
        silence: true,
      })
      expect(run.display, `${format} ${variant}`).toBe('')
      expect(run.sentences).toEqual([])
      expect(run.events.at(-1)).toMatchObject({ type: 'done', text: '', silent: true })
    }
  })

  it('without the option, [silence] is text like any other', () => {
    const run = runReply([silenceSignal], createTestOptions('plain'))
    expect(run.display).toBe(silenceSignal)
    expect(run.events.at(-1)).not.toHaveProperty('silent')
  })

  it('a reply that only starts like the signal is said in full as soon as it differs', () => {
    const parser = createReplyParser({ ...createTestOptions('plain'), silence: true })
    expect(released(parser.push('[sil'))).toBe('')
    expect(released(parser.push('ly] me'))).toBe('[silly] me')
    expect(released(parser.push('!'))).toBe('!')
    expect(parser.end().at(-1)).toMatchObject({ type: 'done', text: '[silly] me!' })
  })

  it('the silence signal followed by words is speech, released with the words', () => {
    const parser = createReplyParser({ ...createTestOptions('plain'), silence: true })
    expect(released(parser.push('[silence] '))).toBe('')
    expect(released(parser.push('ok'))).toBe('[silence] ok')
  })
})
