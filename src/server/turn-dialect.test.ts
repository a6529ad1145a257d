import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { CharpipeEvent } from '../shared/events.js'
import { createSseChatDialect } from './sse-chat-dialect.js'
import { createTurnEnd, turnFailedFrame } from './turn-dialect.js'
import { createWebSocketDialect, type ServerFrame } from './websocket/websocket-dialect.js'

// The engine's session for a keyed client (create-session-owners.ts) and the name the client gave it.
const engineSession = '~key~room'
const named = 'room'
const base = { session: engineSession, turn: 't1' }

const chunk = (text: string): CharpipeEvent => ({ ...base, type: 'llm_chunk', text })
const done = (text: string): CharpipeEvent => ({
  ...base,
  type: 'llm_done',
  text,
  emotion: 'happy',
  interrupted: false,
})

/** Any event of a turn but its `llm_done`, on the engine's session. */
const eventBeforeDone: fc.Arbitrary<CharpipeEvent> = fc.oneof(
  fc.string().map(chunk),
  fc.string().map((emotion): CharpipeEvent => ({ ...base, type: 'llm_emotion', emotion })),
  fc
    .tuple(fc.nat(), fc.string())
    .map(([index, text]): CharpipeEvent => ({ ...base, type: 'llm_sentence', index, text, emotion: 'calm' })),
  fc.string().map((text): CharpipeEvent => ({ ...base, type: 'greeting', text, emotion: 'happy' })),
  fc
    .string()
    .map((message): CharpipeEvent => ({ ...base, type: 'llm_error', code: 'upstream_http', message })),
  fc
    .tuple(fc.string(), fc.jsonValue())
    .map(([name, args]): CharpipeEvent => ({ ...base, type: 'tool_call', id: 'c', name, arguments: args })),
)

/** A turn as the engine yields it (its `llm_done` carries the text of its chunks), then anything at all. */
const turnThenStray = fc
  .tuple(
    fc.array(eventBeforeDone, { maxLength: 30 }),
    fc.array(fc.oneof(eventBeforeDone, fc.string().map(done))),
  )
  .map(([before, after]) => {
    const text = before.map((event) => (event.type === 'llm_chunk' ? event.text : '')).join('')
    return { events: [...before, done(text), ...after], text }
  })

const chunkText = (frames: readonly ServerFrame[]) =>
  frames.map((frame) => (frame.type === 'llm_chunk' ? frame.text : '')).join('')

describe('the WebSocket dialect', () => {
  it.each([
    [
      'a chunk keeps its text, renamed to the session the client named',
      chunk('Hi'),
      { ...chunk('Hi'), session: named },
    ],
    ['llm_done as it is, renamed', done('Hi'), { ...done('Hi'), session: named }],
    [
      'an event already on the session the client named is sent as it is',
      { ...chunk('x'), session: named },
      { ...chunk('x'), session: named },
    ],
  ])('%s', (_name, event, frame) => {
    expect(createWebSocketDialect(named).push(event)).toEqual([frame])
  })

  it('writes the frames of today byte for byte: the event JSON with the named session', () => {
    const event = { ...done('Hi'), usage: { prompt_tokens: 3, completion_tokens: 1 } }
    const [frame] = createWebSocketDialect(named).push(event)
    expect(JSON.stringify(frame)).toBe(JSON.stringify({ ...event, session: named }))
  })

  it('a failed turn ends with the internal error frame; one that ended, with nothing more', () => {
    expect(createWebSocketDialect(named).finish({ threw: true })).toEqual([turnFailedFrame])
    expect(createWebSocketDialect(named).finish({ threw: false })).toEqual([])
  })

  it('any turn maps to frames whose chunk text is the turn text, ending with exactly one llm_done', () => {
    fc.assert(
      fc.property(turnThenStray, ({ events, text }) => {
        const dialect = createWebSocketDialect(named)
        const frames = events.flatMap((event) => dialect.push(event))
        expect(chunkText(frames)).toBe(text)
        expect(frames.filter((frame) => frame.type === 'llm_done')).toHaveLength(1)
        expect(frames.at(-1)).toMatchObject({ type: 'llm_done', text })
        expect(frames.every((frame) => (frame as { session?: string }).session === named)).toBe(true)
      }),
    )
  })
})

describe('the /api/chat SSE dialect', () => {
  it('one message per event, named after its type, its data the renamed event', () => {
    const dialect = createSseChatDialect(named)
    expect(dialect.push(chunk('Hi'))).toEqual([
      { event: 'llm_chunk', data: JSON.stringify({ ...chunk('Hi'), session: named }) },
    ])
    expect(dialect.finish({ threw: true })).toEqual([
      { event: 'error', data: JSON.stringify(turnFailedFrame) },
    ])
    expect(dialect.finish({ threw: false })).toEqual([])
  })

  it('any turn maps to messages whose chunk text is the turn text, ending with exactly one llm_done', () => {
    fc.assert(
      fc.property(turnThenStray, ({ events, text }) => {
        const dialect = createSseChatDialect(named)
        const messages = events.flatMap((event) => dialect.push(event))
        const frames = messages.map((message) => JSON.parse(message.data) as ServerFrame)
        expect(messages.map((message) => message.event)).toEqual(frames.map((frame) => frame.type))
        expect(chunkText(frames)).toBe(text)
        expect(frames.filter((frame) => frame.type === 'llm_done')).toHaveLength(1)
        expect(frames.at(-1)?.type).toBe('llm_done')
      }),
    )
  })
})

describe('createTurnEnd', () => {
  it('is over only after the first llm_done', () => {
    const end = createTurnEnd()
    expect([chunk('a'), done('a'), chunk('b'), done('b')].map((event) => end.isOver(event))).toEqual([
      false,
      false,
      true,
      true,
    ])
  })
})
