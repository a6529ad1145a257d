import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { CharpipeEvent } from '../shared/events.js'
import { driveTurn, type TurnSource } from './drive-turn.js'
import { createChatCompletionsFormat } from './openai/create-chat-completions-format.js'
import { createEmotionDialectWriter } from './openai/create-emotion-dialect-writer.js'
import { createTurnTally, createWireDialect } from './openai/wire-format.js'
import { createOpenResponsesFormat } from './responses/create-open-responses-format.js'
import { createResponseBuilder } from './responses/create-response-builder.js'
import { createSseChatDialect } from './sse-chat-dialect.js'
import type { TurnDialect, TurnTransport } from './turn-dialect.js'
import { createWebSocketDialect } from './websocket/websocket-dialect.js'

const base = { session: 's', turn: 't' }
const chunkOf = (text: string): CharpipeEvent => ({ ...base, type: 'llm_chunk', text })
const doneOf = (text: string): CharpipeEvent => ({
  ...base,
  type: 'llm_done',
  text,
  emotion: 'happy',
  interrupted: false,
})
const turnOf = (...texts: string[]): CharpipeEvent[] => [...texts.map(chunkOf), doneOf(texts.join(''))]

/** A dialect that writes each event's type (and a chunk's text), then how the turn finished. */
const namingDialect: TurnDialect<string> = {
  push: (event) => [event.type === 'llm_chunk' ? `chunk:${event.text}` : event.type],
  finish: ({ threw }) => [threw ? 'failed' : 'finished'],
}

function createRecordingTransport<Chunk>(log: unknown[]): TurnTransport<Chunk> {
  return {
    write: (chunk) => void log.push(chunk),
    flushed: async () => void log.push('flushed'),
  }
}

async function* iterate(events: readonly CharpipeEvent[], failAt?: number) {
  for (const [index, event] of events.entries()) {
    if (index === failAt) throw new Error('the model went away')
    yield event
  }
}

type SourceOf = (events: readonly CharpipeEvent[], failAt?: number) => TurnSource

/** The same turn pushed (as `Charpipe.run` hands it on) and pulled (as `generate` yields it). */
const sources: [string, SourceOf][] = [
  [
    'pushed',
    (events, failAt) => ({
      relay: async (onEvent) => {
        for (const [index, event] of events.entries()) {
          if (index === failAt) throw new Error('the model went away')
          onEvent(event)
        }
      },
    }),
  ],
  ['pulled', (events, failAt) => ({ events: iterate(events, failAt) })],
]

describe.each(sources)('driveTurn, events %s', (_name, sourceOf) => {
  it('writes each event through the dialect, in order, then its finish, then waits for the transport', async () => {
    const log: unknown[] = []
    const failures: unknown[] = []
    await driveTurn({
      source: sourceOf(turnOf('Hi', '!')),
      dialect: namingDialect,
      transport: createRecordingTransport(log),
      onFailure: (error) => failures.push(error),
    })
    expect(log).toEqual(['chunk:Hi', 'chunk:!', 'llm_done', 'finished', 'flushed'])
    expect(failures).toEqual([])
  })

  it('a turn that throws: reported, then its failure written after what was sent', async () => {
    const log: unknown[] = []
    const failures: unknown[] = []
    await driveTurn({
      source: sourceOf(turnOf('Hi', '!'), 1),
      dialect: namingDialect,
      transport: createRecordingTransport(log),
      onFailure: (error) => failures.push((error as Error).message),
    })
    expect(failures).toEqual(['the model went away'])
    expect(log).toEqual(['chunk:Hi', 'failed', 'flushed'])
  })
})

const emotionWriter = () => createEmotionDialectWriter({ dialect: 'field', defaultEmotion: 'neutral' })
const thrownChunk = { data: 'thrown' }

/** The four dialects of the server, each with what its stream ends with when the turn ended or threw. */
const dialects: [string, () => TurnDialect<unknown>, (last: unknown) => string][] = [
  ['websocket frames', () => createWebSocketDialect('named'), (last) => (last as { type: string }).type],
  ['/api/chat SSE', () => createSseChatDialect('named'), (last) => (last as { event: string }).event],
  [
    'chat completions',
    () =>
      createWireDialect({
        format: createChatCompletionsFormat({
          id: 'chatcmpl-1',
          created: 1,
          model: 'm',
          emotionWriter: emotionWriter(),
          includeUsage: false,
          countUsage: () => ({ prompt_tokens: 1, completion_tokens: 2, total_tokens: 3 }),
        }),
        tally: createTurnTally(undefined),
        countChunksIfLeft: () => undefined,
        fail: () => [thrownChunk],
      }),
    (last) => (last === thrownChunk ? 'thrown' : (last as { data: string }).data),
  ],
  [
    'open responses',
    () => {
      const builder = createResponseBuilder({
        id: 'resp_1',
        model: 'm',
        request: { input: 'Hi' },
        store: true,
        now: () => 100,
        emotionWriter: emotionWriter(),
      })
      return createWireDialect({
        format: createOpenResponsesFormat({
          builder,
          countUsage: () => ({
            input_tokens: 1,
            output_tokens: 2,
            total_tokens: 3,
            input_tokens_details: { cached_tokens: 0 },
            output_tokens_details: { reasoning_tokens: 0 },
          }),
        }),
        tally: createTurnTally(undefined),
        countChunksIfLeft: () => undefined,
        // The store answers on a later turn of the event loop: the end waits for it.
        settle: () => Promise.resolve().then(() => undefined),
        fail: () => [thrownChunk],
      })
    },
    (last) => (last === thrownChunk ? 'thrown' : (last as { event: string }).event),
  ],
]

/** The chunks as text, the random ids of the items a response names left out. */
const withoutIds = (chunks: readonly unknown[]) => JSON.stringify(chunks).replace(/_[0-9a-f]{16,}/g, '_<id>')

/** What each dialect's stream ends with: a turn that ended, one that threw. */
const expectedLast: Record<string, [string, string]> = {
  'websocket frames': ['llm_done', 'error'],
  '/api/chat SSE': ['llm_done', 'error'],
  'chat completions': ['[DONE]', 'thrown'],
  'open responses': ['response.completed', 'thrown'],
}

describe.each(dialects)('driveTurn through the %s dialect', (name, createDialect, nameLast) => {
  it.each(sources)(
    'events %s: exactly what the dialect maps, in order, its finish last',
    async (_source, sourceOf) => {
      const [ended, threw] = expectedLast[name]!
      for (const [failAt, last] of [
        [undefined, ended],
        [2, threw],
      ] as const) {
        const events = turnOf('Hello', ' there')
        // The same mapping done by hand on a fresh dialect: what the driver must write.
        const byHand = createDialect()
        const expected = [
          ...(byHand.start?.() ?? []),
          ...events.slice(0, failAt).flatMap((event) => byHand.push(event)),
          ...(await byHand.finish({ threw: failAt !== undefined })),
        ]
        const log: unknown[] = []
        await driveTurn({
          source: sourceOf(events, failAt),
          dialect: createDialect(),
          transport: createRecordingTransport(log),
          onFailure: () => {},
        })
        expect(log.pop()).toBe('flushed')
        expect(withoutIds(log)).toBe(withoutIds(expected))
        expect(nameLast(log.at(-1))).toBe(last)
      }
    },
  )
})

/** Any event of a turn, its `llm_done` and strays after it included. */
const anyEvent: fc.Arbitrary<CharpipeEvent> = fc.oneof(
  fc.string().map(chunkOf),
  fc.string().map((emotion): CharpipeEvent => ({ ...base, type: 'llm_emotion', emotion })),
  fc
    .string()
    .map((message): CharpipeEvent => ({ ...base, type: 'llm_error', code: 'upstream_http', message })),
  fc.string().map(doneOf),
)

describe('driveTurn, any turn', () => {
  it('asks the finish once, writes its chunks last and only once it resolved, nothing after', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(anyEvent, { maxLength: 20 }),
        fc.option(fc.nat({ max: 20 }), { nil: undefined }),
        fc.constantFrom(...dialects),
        fc.constantFrom(...sources),
        async (events, failAt, [, createDialect], [, sourceOf]) => {
          const log: unknown[] = []
          const dialect = createDialect()
          let finishes = 0
          const finishChunk = { finish: true }
          let lateEvent: ((event: CharpipeEvent) => void) | undefined
          const source = sourceOf(events, failAt)
          await driveTurn({
            source:
              'relay' in source
                ? {
                    // A relay that keeps the callback: an event handed on after the turn is not heard.
                    relay: (onEvent) => {
                      lateEvent = onEvent
                      return source.relay(onEvent)
                    },
                  }
                : source,
            dialect: {
              ...(dialect.start ? { start: () => dialect.start!() } : {}),
              push: (event) => dialect.push(event),
              async finish(outcome) {
                finishes++
                const chunks = await dialect.finish(outcome)
                await Promise.resolve()
                log.push('finish resolved')
                return [...chunks, finishChunk]
              },
            },
            transport: createRecordingTransport(log),
            onFailure: () => {},
          })
          lateEvent?.(chunkOf('late'))
          expect(finishes).toBe(1)
          expect(log.slice(-2)).toEqual([finishChunk, 'flushed'])
          expect(log.filter((entry) => entry === 'finish resolved')).toHaveLength(1)
          // Nothing of the finish goes out before it resolved: it is written all at once, after.
          const resolvedAt = log.indexOf('finish resolved')
          expect(log.indexOf(finishChunk)).toBeGreaterThan(resolvedAt)
          expect(log.length - resolvedAt - 2).toBe(
            (await countFinishChunks(createDialect, events, failAt)) + 1,
          )
        },
      ),
    )
  })
})

/** How many chunks a fresh dialect's finish writes after the same events: what follows the resolve. */
async function countFinishChunks(
  createDialect: () => TurnDialect<unknown>,
  events: readonly CharpipeEvent[],
  failAt: number | undefined,
): Promise<number> {
  const dialect = createDialect()
  dialect.start?.()
  for (const event of events.slice(0, failAt)) dialect.push(event)
  return (await dialect.finish({ threw: failAt !== undefined && failAt < events.length })).length
}
