import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { createReplyParser } from './create-reply-parser.js'
import { silenceSignal } from './create-silence-gate.js'
import { maxThoughtUnits, thoughtCloseTag, thoughtOpenTag } from './create-thought-extractor.js'
import { createTestOptions, runReply, splitAt, splitEveryUnit } from './reply-test-helpers.js'
import type { ReplyEvent, ReplyParserOptions } from './types.js'

/** Pieces of thoughts that come near the markers and the JSON's escapes. */
const thoughtFragments = [
  '想',
  'THINK',
  ' ',
  '\n',
  '<',
  '>',
  '/',
  '</',
  '</thou',
  '</though',
  'ght>',
  't>',
  '<thought>',
  '"',
  '\\',
  '。',
  '{',
  '}',
]

/** Pieces of the line: speech, markers and the silence signal. */
const lineFragments = [
  '嗯。',
  'Hello.',
  '好的，',
  ' ',
  '\n',
  '[开心]',
  silenceSignal,
  '<thought>',
  '</thought>',
  '"',
  '\\',
  '{',
  'x',
]

const thoughtArbitrary = fc
  .array(fc.constantFrom(...thoughtFragments), { maxLength: 10 })
  .map((parts) => parts.join(''))
  // The marker form cannot hold its own closing tag; the JSON form can, and is tested with it below.
  .filter((thought) => !thought.includes(thoughtCloseTag))

const lineArbitrary = fc.oneof(
  fc.array(fc.constantFrom(...lineFragments), { maxLength: 10 }).map((parts) => parts.join('')),
  fc.constantFrom(silenceSignal, ` ${silenceSignal}\n`),
)

type Format = NonNullable<ReplyParserOptions['replyFormat']>
const formatArbitrary = fc.constantFrom<Format>('json', 'prefix', 'auto', 'plain')
const cutsArbitrary = fc.array(fc.nat({ max: 120 }), { maxLength: 24 })

/**
 * The model's output for a line in a format, with the thought in the documented form: the JSON
 * envelope's `thought` field (`field`), or `<thought>…</thought>` opening the whole output.
 */
function wrap(line: string, format: Format, thought: string | undefined, field: boolean): string {
  const marker = thought === undefined ? '' : `${thoughtOpenTag}${thought}${thoughtCloseTag}\n`
  if (format === 'json' || (format === 'auto' && field)) {
    if (field && thought !== undefined) return JSON.stringify({ thought, emotion: '开心', text: line })
    return `${marker}${JSON.stringify({ emotion: '开心', text: line })}`
  }
  if (format === 'prefix') return `${marker}{"emotion":"开心"}\n${line}`
  return `${marker}${line}`
}

function thoughtsOf(events: readonly ReplyEvent[]): string[] {
  return events.flatMap((event) => (event.type === 'thought' ? [event.text] : []))
}

function optionsFor(format: Format, tags: boolean): ReplyParserOptions {
  return { ...createTestOptions(format, { inline_emotion_tags: tags, early_release: false }), silence: true }
}

describe('inner thought in the reply parser', () => {
  it('any chunking of a reply with a thought releases the line only, and the thought as a thought', () => {
    fc.assert(
      fc.property(
        lineArbitrary,
        thoughtArbitrary,
        formatArbitrary,
        fc.boolean(),
        fc.boolean(),
        cutsArbitrary,
        (line, thought, format, field, tags, cuts) => {
          const options = optionsFor(format, tags)
          // The same line without any thought, parsed as before thoughts existed. Without an envelope
          // the marker is followed by the line itself, and the space after it is layout.
          const bare = format === 'plain' || (format === 'auto' && !field)
          const said = bare ? line.trimStart() : line
          const reference = runReply([wrap(said, format, undefined, field)], { ...options, thoughts: true })
          const output = wrap(line, format, thought, field)
          const run = runReply(splitAt(output, cuts), { ...options, thoughts: true })
          expect(run.display).toBe(reference.display)
          expect(run.sentences).toEqual(reference.sentences)
          expect(run.done).toEqual(reference.done)
          expect(run.events.at(-1)).toEqual(reference.events.at(-1))
          // The thought, then any the line itself opens with (a marker at the start of its text).
          const expected = [...(thought.trim() ? [thought.trim()] : []), ...thoughtsOf(reference.events)]
          expect(thoughtsOf(run.events)).toEqual(expected)
          // Everything else (emotions before sentences, silence) is as without the thought.
          const others = (events: ReplyEvent[]) => events.filter((event) => event.type !== 'thought')
          expect(others(run.structure)).toEqual(others(reference.structure))
        },
      ),
      { numRuns: 800 },
    )
  })

  it('a JSON thought may hold anything, even the marker, and is never text', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 40 }), lineArbitrary, cutsArbitrary, (thought, line, cuts) => {
        const options = { ...optionsFor('json', false), thoughts: true }
        const reference = runReply([JSON.stringify({ emotion: '开心', text: line })], options)
        const output = JSON.stringify({ thought: `THINK${thought}`, emotion: '开心', text: line })
        const run = runReply(splitAt(output, cuts), options)
        expect(run.display).toBe(reference.display)
        expect(run.sentences).toEqual(reference.sentences)
        const [first, ...rest] = thoughtsOf(run.events)
        expect(first?.startsWith('THINK')).toBe(true)
        expect(rest).toEqual(thoughtsOf(reference.events))
      }),
      { numRuns: 400 },
    )
  })

  it('a reply cut off inside its thought says nothing, one code unit a chunk, in each format', () => {
    for (const format of ['json', 'prefix', 'auto', 'plain'] as const) {
      const outputs = [`${thoughtOpenTag}我在想`, `${thoughtOpenTag}我在想</thou`]
      // The plain format has no JSON: there an object is text.
      if (format !== 'plain') outputs.push('{"thought":"我在想')
      for (const output of outputs) {
        const run = runReply(splitEveryUnit(output), { ...createTestOptions(format), thoughts: true })
        expect(run.display, `${format} ${output}`).toBe('')
        expect(run.sentences).toEqual([])
        expect(thoughtsOf(run.events)).toEqual([output.includes('</') ? '我在想</thou' : '我在想'])
      }
    }
  })

  it('a thought followed by [silence] is a silent turn with a thought', () => {
    for (const output of [
      `${thoughtOpenTag}不理他${thoughtCloseTag}\n${silenceSignal}`,
      JSON.stringify({ thought: '不理他', emotion: '平静', text: silenceSignal }),
      `${thoughtOpenTag}不理他${thoughtCloseTag}${JSON.stringify({ emotion: '平静', text: silenceSignal })}`,
    ]) {
      const run = runReply(splitEveryUnit(output), {
        ...createTestOptions('auto'),
        silence: true,
        thoughts: true,
      })
      expect(run.display).toBe('')
      expect(thoughtsOf(run.events)).toEqual(['不理他'])
      expect(run.events.at(-1)).toMatchObject({ type: 'done', text: '', silent: true })
    }
  })

  it('a marker opening the text (after the emotion line, inside the JSON text) is a thought too', () => {
    for (const [format, output] of [
      ['prefix', `{"emotion":"开心"}\n${thoughtOpenTag}他真好${thoughtCloseTag}\n谢谢你。`],
      [
        'json',
        JSON.stringify({ emotion: '开心', text: `${thoughtOpenTag}他真好${thoughtCloseTag}谢谢你。` }),
      ],
      [
        'auto',
        JSON.stringify({ emotion: '开心', text: ` ${thoughtOpenTag}他真好${thoughtCloseTag} 谢谢你。` }),
      ],
    ] as const) {
      const run = runReply(splitEveryUnit(output), { ...createTestOptions(format), thoughts: true })
      expect(run.display, format).toBe('谢谢你。')
      expect(thoughtsOf(run.events)).toEqual(['他真好'])
      expect(run.sentences).toEqual([['谢谢你。', '开心']])
    }
  })

  it('the thought goes out before the emotion and the first sentence', () => {
    const run = runReply([`${thoughtOpenTag}他真好${thoughtCloseTag}{"emotion":"开心"}\n谢谢你。`], {
      ...createTestOptions('prefix'),
      thoughts: true,
    })
    expect(run.structure.map((event) => event.type)).toEqual(['thought', 'emotion', 'sentence', 'done'])
  })

  it('text that only starts like the marker is said in full as soon as it differs', () => {
    const parser = createReplyParser({ ...createTestOptions('plain'), thoughts: true })
    const display = (events: ReplyEvent[]) =>
      events.map((event) => (event.type === 'display-delta' ? event.text : '')).join('')
    expect(display(parser.push(' <thou'))).toBe('')
    expect(display(parser.push('sand> years'))).toBe(' <thousand> years')
    expect(parser.end().at(-1)).toMatchObject({ type: 'done', text: ' <thousand> years' })
  })

  it('a long thought is kept to its bound and never spoken', () => {
    const long = '想'.repeat(maxThoughtUnits + 500)
    const run = runReply(splitAt(`${thoughtOpenTag}${long}${thoughtCloseTag}好。`, [10, 3000, 4600]), {
      ...createTestOptions('plain'),
      thoughts: true,
    })
    expect(run.display).toBe('好。')
    expect(thoughtsOf(run.events)).toEqual(['想'.repeat(maxThoughtUnits)])
  })

  it('without the option, the marker is text and the JSON thought is skipped', () => {
    expect(runReply([`${thoughtOpenTag}x${thoughtCloseTag}好`], createTestOptions('plain')).display).toBe(
      `${thoughtOpenTag}x${thoughtCloseTag}好`,
    )
    const run = runReply(
      [JSON.stringify({ thought: 'x', emotion: '开心', text: '好' })],
      createTestOptions('json'),
    )
    expect(run.display).toBe('好')
    expect(thoughtsOf(run.events)).toEqual([])
  })
})
