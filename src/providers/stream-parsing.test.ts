import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { CharpipeError } from '../shared/errors.js'
import { createSseDecoder, maxSseLineCharacters, type SseEvent } from './create-sse-decoder.js'
import { createThinkTagSplitter } from './create-think-tag-splitter.js'
import { createToolCallAccumulator } from './create-tool-call-accumulator.js'

function decodeInPieces(pieces: string[]): SseEvent[] {
  const events: SseEvent[] = []
  const decoder = createSseDecoder((event) => events.push(event))
  for (const piece of pieces) decoder.push(piece)
  decoder.end()
  return events
}

function splitAt(text: string, cuts: number[]): string[] {
  const points = [...new Set(cuts.map((cut) => cut % (text.length + 1)))].sort((a, b) => a - b)
  const pieces: string[] = []
  let start = 0
  for (const point of points) {
    pieces.push(text.slice(start, point))
    start = point
  }
  pieces.push(text.slice(start))
  return pieces
}

describe('createSseDecoder on long lines', () => {
  it('joins a long line that arrives in many pieces', () => {
    const value = 'x'.repeat(500_000)
    const body = `data: ${value}\r\n\r\ndata: next\n\n`
    const pieces = Array.from({ length: Math.ceil(body.length / 999) }, (_, index) =>
      body.slice(index * 999, (index + 1) * 999),
    )
    expect(decodeInPieces(pieces)).toEqual([
      { event: undefined, data: value },
      { event: undefined, data: 'next' },
    ])
  })

  it('ends a stream whose line passes the maximum with upstream_stream, as soon as it passes', () => {
    const decoder = createSseDecoder(() => {})
    const piece = 'y'.repeat(65_536)
    let pushed = 0
    let caught: unknown
    try {
      decoder.push('data: ')
      for (; pushed < 1_000; pushed++) decoder.push(piece)
    } catch (error) {
      caught = error
    }
    expect(CharpipeError.isInstance(caught) && caught.code).toBe('upstream_stream')
    expect((caught as Error).message).toMatch(/SSE line of more than 1048576 characters/)
    // Thrown by the push that passes the maximum: nothing past it is kept or scanned.
    expect(pushed).toBe(Math.floor((maxSseLineCharacters - 'data: '.length) / piece.length))
  })

  it('counts an event of many data lines against the same maximum', () => {
    const decoder = createSseDecoder(() => {}, { maxLineCharacters: 100 })
    expect(() => decoder.push(`data: ${'a'.repeat(60)}\ndata: ${'b'.repeat(60)}\n`)).toThrow(/more than 100/)
    const whole = createSseDecoder(() => {}, { maxLineCharacters: 100 })
    expect(() => whole.push(`data: ${'a'.repeat(200)}\n`)).toThrow(/more than 100/)
  })
})

describe('createSseDecoder', () => {
  const body =
    ': keep-alive\r\n\r\nevent: message_start\ndata: {"a":1}\n\ndata: line one\ndata: line two\n\nid: 7\nretry: 10\ndata: [DONE]\n\n'
  const expected: SseEvent[] = [
    { event: 'message_start', data: '{"a":1}' },
    { event: undefined, data: 'line one\nline two' },
    { event: undefined, data: '[DONE]' },
  ]

  it('decodes events, multi-line data, comments, CRLF', () => {
    expect(decodeInPieces([body])).toEqual(expected)
  })

  it('gives the same events however the body is split', () => {
    fc.assert(
      fc.property(fc.array(fc.nat(), { maxLength: 12 }), (cuts) => {
        expect(decodeInPieces(splitAt(body, cuts))).toEqual(expected)
      }),
    )
  })

  it('treats a CR at the end of one piece and LF at the start of the next as one line break', () => {
    expect(decodeInPieces(['data: x\r', '\n\r', '\n'])).toEqual([{ event: undefined, data: 'x' }])
  })

  it('dispatches a last event that lacks its blank line', () => {
    expect(decodeInPieces(['data: tail'])).toEqual([{ event: undefined, data: 'tail' }])
  })

  it('refuses a line that is no SSE field', () => {
    expect(() => decodeInPieces(['data: ok\n\n{"choices":[]}\n\n'])).toThrow(/malformed SSE line/)
  })
})

describe('createThinkTagSplitter', () => {
  function split(pieces: string[]) {
    let text = ''
    let reasoning = ''
    const splitter = createThinkTagSplitter(
      (part) => {
        text += part
      },
      (part) => {
        reasoning += part
      },
    )
    for (const piece of pieces) splitter.push(piece)
    splitter.end()
    return { text, reasoning }
  }

  it('separates reasoning from text with tags split anywhere', () => {
    const content = '<think>先想想 a<b</think>\n\n你好，<这是>尖括号。'
    fc.assert(
      fc.property(fc.array(fc.nat(), { maxLength: 10 }), (cuts) => {
        expect(split(splitAt(content, cuts))).toEqual({
          reasoning: '先想想 a<b',
          text: '你好，<这是>尖括号。',
        })
      }),
    )
  })

  it('releases a held-back partial tag at the end', () => {
    expect(split(['答案是 <th'])).toEqual({ text: '答案是 <th', reasoning: '' })
  })
})

describe('createToolCallAccumulator', () => {
  it('treats id "" as the same call and keys on index', () => {
    const calls = createToolCallAccumulator()
    calls.push({ index: 0, id: 'call_1', function: { name: 'weather', arguments: '' } }, 0)
    calls.push({ index: 0, id: '', function: { arguments: '{"city":' } }, 0)
    calls.push({ index: 0, id: '', function: { arguments: '"上海"}' } }, 0)
    calls.push({ index: 1, id: 'call_2', function: { name: 'time', arguments: '{}' } }, 0)
    expect(calls.drain()).toEqual([
      {
        type: 'tool-call',
        id: 'call_1',
        name: 'weather',
        arguments: { city: '上海' },
        rawArguments: '{"city":"上海"}',
      },
      { type: 'tool-call', id: 'call_2', name: 'time', arguments: {}, rawArguments: '{}' },
    ])
  })

  it('does not duplicate a call restated whole with the same id and name', () => {
    const calls = createToolCallAccumulator()
    calls.push({ index: 0, id: 'c', function: { name: 'add', arguments: '{"a":1}' } }, 0)
    calls.push({ index: 0, id: 'c', function: { name: 'add', arguments: '{"a":1}' } }, 0)
    expect(calls.drain()).toMatchObject([{ name: 'add', arguments: { a: 1 }, rawArguments: '{"a":1}' }])
  })

  it('starts a new call when a new id arrives at the same index', () => {
    const calls = createToolCallAccumulator()
    calls.push({ index: 0, id: 'a', function: { name: 'one', arguments: '{}' } }, 0)
    calls.push({ index: 0, id: 'b', function: { name: 'two', arguments: '{}' } }, 0)
    expect(calls.drain().map((call) => call.name)).toEqual(['one', 'two'])
  })

  it('fails clearly on arguments that are not JSON', () => {
    const calls = createToolCallAccumulator()
    calls.push({ index: 0, id: 'a', function: { name: 'one', arguments: '{"a":' } }, 0)
    expect(() => calls.drain()).toThrow(/not JSON/)
  })
})
