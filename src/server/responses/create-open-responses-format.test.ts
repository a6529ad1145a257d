import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { CharpipeEvent, LlmDoneEvent } from '../../shared/events.js'
import { createEmotionDialectWriter, type EmotionDialect } from '../openai/create-emotion-dialect-writer.js'
import { createTurnTally, type TurnEnding, type WireChunk } from '../openai/wire-format.js'
import { createOpenResponsesFormat } from './create-open-responses-format.js'
import { createResponseBuilder } from './create-response-builder.js'

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

function createFormat(dialect: EmotionDialect = 'field') {
  const builder = createResponseBuilder({
    id: 'resp_1',
    model: 'm',
    request: { input: 'Hi' },
    store: true,
    now: () => 100,
    emotionWriter: createEmotionDialectWriter({ dialect, defaultEmotion: 'neutral' }),
  })
  const format = createOpenResponsesFormat({
    builder,
    countUsage: () => ({
      input_tokens: 1,
      output_tokens: 2,
      total_tokens: 3,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens_details: { reasoning_tokens: 0 },
    }),
  })
  return { builder, format }
}

interface RunOptions {
  dialect?: EmotionDialect
  /** The ending as the driver settles it: a store that failed, a client that left. */
  settle?: (ending: TurnEnding) => TurnEnding
}

function runFormat(events: readonly CharpipeEvent[], options: RunOptions = {}) {
  const { builder, format } = createFormat(options.dialect)
  const tally = createTurnTally(undefined)
  const chunks: WireChunk[] = [...format.start()]
  for (const event of events) {
    tally.observe(event)
    chunks.push(...format.push(event))
  }
  let ending = tally.ending()
  ending = options.settle?.(ending) ?? ending
  chunks.push(...format.close(ending), ...format.end(ending))
  return { chunks, resource: builder.resource() }
}

// biome-ignore lint/suspicious/noExplicitAny: the assertions read event fields by name
const parse = (chunk: WireChunk): any => JSON.parse(chunk.data)

describe('the Open Responses wire format', () => {
  it.each([
    {
      name: 'a reply: the item, its part, the deltas, all done, then response.completed',
      events: [chunkOf('Hi '), chunkOf('there.'), doneOf('Hi there.')],
      types: [
        'response.created',
        'response.in_progress',
        'response.output_item.added',
        'response.content_part.added',
        'response.output_text.delta',
        'response.output_text.delta',
        'response.output_text.done',
        'response.content_part.done',
        'response.output_item.done',
        'response.completed',
      ],
      status: 'completed',
    },
    {
      name: 'a model that fails before any text: response.failed after response.created',
      events: [
        {
          ...base,
          type: 'llm_error',
          code: 'upstream_http',
          message: 'refused',
          status: 400,
        } as CharpipeEvent,
        doneOf('', { interrupted: true }),
      ],
      types: ['response.created', 'response.in_progress', 'response.failed'],
      status: 'failed',
    },
    {
      name: 'a turn without llm_done: response.failed',
      events: [chunkOf('Half')],
      types: [
        'response.created',
        'response.in_progress',
        'response.output_item.added',
        'response.content_part.added',
        'response.output_text.delta',
        'response.output_text.done',
        'response.content_part.done',
        'response.output_item.done',
        'response.failed',
      ],
      status: 'failed',
    },
  ])('$name', ({ events, types, status }) => {
    const { chunks, resource } = runFormat(events)
    expect(chunks.map((chunk) => chunk.event)).toEqual(types)
    expect(chunks.map((chunk) => parse(chunk).sequence_number)).toEqual(types.map((_, index) => index))
    expect(resource.status).toBe(status)
  })

  it('fails a settled response whose store failed: response.failed with the store code, never completed', () => {
    const { builder, format } = createFormat()
    const tally = createTurnTally(undefined)
    for (const event of [chunkOf('Hi.'), doneOf('Hi.')]) {
      tally.observe(event)
      format.push(event)
    }
    const ending = tally.ending()
    format.close(ending)
    const last = format.end({ ...ending, failure: { code: 'store_unavailable', message: 'disk full' } })
    expect(last.map((chunk) => chunk.event)).toEqual(['response.failed'])
    expect(parse(last[0]!).response.error).toEqual({ code: 'store_unavailable', message: 'disk full' })
    expect(builder.resource().status).toBe('failed')
  })

  it('keeps of a response whose client left only the text of the events it was sent', () => {
    const events = [
      chunkOf('One. '),
      chunkOf('Two. '),
      chunkOf('Three.'),
      doneOf('One. Two. Three.', { interrupted: true }),
    ]
    // created, in_progress, item added, part added, delta "One. ", delta "Two. ": the client left then.
    const { resource } = runFormat(events, { settle: (ending) => ({ ...ending, writtenChunks: 6 }) })
    expect(resource.status).toBe('incomplete')
    expect(resource.output).toHaveLength(1)
    expect(resource.output[0]).toMatchObject({ type: 'message', content: [{ text: 'One. Two. ' }] })
  })

  it("carries exactly the turn's text in its deltas' display text, and in the deltas of the plain dialects", () => {
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
          const { chunks, resource } = runFormat([...events, doneOf(text)], { dialect })
          expect(chunks.map((chunk) => chunk.text ?? '').join('')).toBe(text)
          const deltas = chunks
            .filter((chunk) => chunk.event === 'response.output_text.delta')
            .map((chunk) => parse(chunk).delta)
            .join('')
          if (dialect === 'field' || dialect === 'none') {
            expect(deltas).toBe(text)
            expect(
              resource.output
                .flatMap((item) => (item.type === 'message' ? item.content : []))
                .map((part) => part.text)
                .join(''),
            ).toBe(text)
          }
        },
      ),
    )
  })
})
