import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { CharpipeEvent, LlmDoneEvent } from '../../shared/events.js'
import { createChatCompletionsFormat } from './create-chat-completions-format.js'
import { createEmotionDialectWriter, type EmotionDialect } from './create-emotion-dialect-writer.js'
import { createTurnTally, type WireChunk } from './wire-format.js'

const base = { session: 's', turn: 't' }
const chunkOf = (text: string): CharpipeEvent => ({ ...base, type: 'llm_chunk', text })
const emotionOf = (emotion: string): CharpipeEvent => ({ ...base, type: 'llm_emotion', emotion })
const doneOf = (text: string, fields: Partial<LlmDoneEvent> = {}): LlmDoneEvent => ({
  ...base,
  type: 'llm_done',
  text,
  emotion: 'happy',
  interrupted: false,
  ...fields,
})

function createFormat(dialect: EmotionDialect = 'field', includeUsage = false) {
  return createChatCompletionsFormat({
    id: 'chatcmpl-1',
    created: 1,
    model: 'm',
    emotionWriter: createEmotionDialectWriter({ dialect, defaultEmotion: 'neutral' }),
    includeUsage,
    countUsage: () => ({ prompt_tokens: 1, completion_tokens: 2, total_tokens: 3 }),
  })
}

/** Runs events through a fresh format as the driver does; every chunk, in order. */
function runFormat(
  events: readonly CharpipeEvent[],
  dialect: EmotionDialect = 'field',
  includeUsage = false,
) {
  const format = createFormat(dialect, includeUsage)
  const tally = createTurnTally(undefined)
  const chunks: WireChunk[] = [...format.start()]
  for (const event of events) {
    tally.observe(event)
    chunks.push(...format.push(event))
  }
  const ending = tally.ending()
  chunks.push(...format.close(ending), ...format.end(ending))
  return chunks
}

// biome-ignore lint/suspicious/noExplicitAny: the assertions read chunk fields by name
const parse = (chunk: WireChunk): any => (chunk.data === '[DONE]' ? '[DONE]' : JSON.parse(chunk.data))
const contentOf = (chunks: readonly WireChunk[]) =>
  chunks
    .map(parse)
    .map((value) => value?.choices?.[0]?.delta?.content ?? '')
    .join('')

describe('the Chat Completions wire format', () => {
  it.each([
    {
      name: 'a reply: role, content deltas, the emotion, finish_reason stop, [DONE]',
      events: [chunkOf('Hi '), emotionOf('happy'), chunkOf('there.'), doneOf('Hi there.')],
      dialect: 'field' as const,
      expected: [
        { delta: { role: 'assistant', content: '' }, finish_reason: null },
        { delta: { content: 'Hi ' }, finish_reason: null },
        { delta: { emotion: 'happy' }, finish_reason: null },
        { delta: { content: 'there.' }, finish_reason: null },
        { delta: { emotion: 'happy' }, finish_reason: 'stop' },
        '[DONE]',
      ],
    },
    {
      name: 'an inline dialect holds the text until its emotion, then writes it after its tag',
      events: [chunkOf('Hi.'), emotionOf('happy'), doneOf('Hi.')],
      dialect: 'bracket' as const,
      expected: [
        { delta: { role: 'assistant', content: '' }, finish_reason: null },
        { delta: { content: '[happy]Hi.' }, finish_reason: null },
        { delta: {}, finish_reason: 'stop' },
        '[DONE]',
      ],
    },
    {
      name: 'a reply cut by a failure: an error object, no finish_reason',
      events: [
        chunkOf('Once'),
        { ...base, type: 'llm_error', code: 'upstream_stream', message: 'cut' } as CharpipeEvent,
        doneOf('Once', { interrupted: true }),
      ],
      dialect: 'none' as const,
      expected: [
        { delta: { role: 'assistant', content: '' }, finish_reason: null },
        { delta: { content: 'Once' }, finish_reason: null },
        { error: { code: 'upstream_stream', type: 'upstream_stream', message: 'cut', param: null } },
        '[DONE]',
      ],
    },
    {
      name: 'a call of a client tool: its chunk, finish_reason tool_calls',
      events: [
        {
          ...base,
          type: 'tool_call',
          id: 'c1',
          name: 'look',
          arguments: { at: 'sky' },
          client: true,
        } as CharpipeEvent,
        doneOf(''),
      ],
      dialect: 'none' as const,
      expected: [
        { delta: { role: 'assistant', content: '' }, finish_reason: null },
        {
          delta: {
            tool_calls: [
              { index: 0, id: 'c1', type: 'function', function: { name: 'look', arguments: '{"at":"sky"}' } },
            ],
          },
          finish_reason: null,
        },
        { delta: {}, finish_reason: 'tool_calls' },
        '[DONE]',
      ],
    },
    {
      name: 'a turn that ended without llm_done: the error of a missing result',
      events: [chunkOf('Half')],
      dialect: 'none' as const,
      expected: [
        { delta: { role: 'assistant', content: '' }, finish_reason: null },
        { delta: { content: 'Half' }, finish_reason: null },
        {
          error: {
            code: 'internal',
            type: 'internal',
            message: 'the turn ended without a result',
            param: null,
          },
        },
        '[DONE]',
      ],
    },
  ])('$name', ({ events, dialect, expected }) => {
    const written = runFormat(events, dialect).map(parse)
    const shown = written.map((value) =>
      value === '[DONE]' || 'error' in value
        ? value
        : { delta: value.choices[0].delta, finish_reason: value.choices[0].finish_reason },
    )
    expect(shown).toEqual(expected)
  })

  it('ends with the usage when asked, after the finish_reason', () => {
    const written = runFormat([chunkOf('Hi.'), doneOf('Hi.')], 'none', true).map(parse)
    expect(written.at(-2)).toMatchObject({ choices: [], usage: { total_tokens: 3 } })
  })

  it('answers a whole completion from the same mapping', () => {
    const format = createFormat('bracket')
    const tally = createTurnTally(undefined)
    for (const event of [
      chunkOf('Hi.'),
      emotionOf('sad'),
      chunkOf(' Bye.'),
      emotionOf('happy'),
      doneOf('Hi. Bye.'),
    ]) {
      tally.observe(event)
      format.push(event)
    }
    const ending = tally.ending()
    format.close(ending)
    expect(format.answer(ending.done!).choices[0]!.message.content).toBe('[sad]Hi.[happy] Bye.')
  })

  it("carries exactly the turn's text in its deltas and their display text, for any chunking and dialect", () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.string({ minLength: 1 }), fc.option(fc.constantFrom('happy', 'sad', '开心'))), {
          maxLength: 12,
        }),
        fc.constantFrom<EmotionDialect>('field', 'none', 'act', 'bracket'),
        (pieces, dialect) => {
          const text = pieces.map(([piece]) => piece).join('')
          const events = pieces.flatMap(([piece, emotion]) =>
            emotion === null ? [chunkOf(piece)] : [chunkOf(piece), emotionOf(emotion)],
          )
          const chunks = runFormat([...events, doneOf(text)], dialect)
          expect(chunks.map((chunk) => chunk.text ?? '').join('')).toBe(text)
          if (dialect === 'field' || dialect === 'none') expect(contentOf(chunks)).toBe(text)
        },
      ),
    )
  })
})
