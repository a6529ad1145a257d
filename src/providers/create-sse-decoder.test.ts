import { describe, expect, it } from 'vitest'
import { CharpipeError } from '../shared/errors.js'
import { createSseDecoder, type SseEvent } from './create-sse-decoder.js'

function decode(pieces: string[], maxLineCharacters?: number) {
  const events: SseEvent[] = []
  const decoder = createSseDecoder((event) => events.push(event), { maxLineCharacters })
  for (const piece of pieces) decoder.push(piece)
  decoder.end()
  return { events, comments: decoder.commentCount }
}

function codeOf(run: () => unknown): string | undefined {
  try {
    run()
  } catch (error) {
    return CharpipeError.isInstance(error) ? error.code : `not a CharpipeError: ${String(error)}`
  }
  return undefined
}

describe('createSseDecoder beyond parsing', () => {
  it('counts keep-alive comments, in any piece and with either line break', () => {
    const { events, comments } = decode([': ping\n\n:', 'ping\r\n\r\ndata: x\n\n: bye\n'])
    expect(comments).toBe(3)
    expect(events).toEqual([{ event: undefined, data: 'x' }])
  })

  it('refuses an event whose data passes the maximum even when it arrives whole in one push', () => {
    const decoder = createSseDecoder(() => {}, { maxLineCharacters: 100 })
    expect(codeOf(() => decoder.push(`data: ${'a'.repeat(101)}\n\n`))).toBe('upstream_stream')
    // Exactly at the maximum is accepted.
    expect(decode([`data: ${'a'.repeat(100)}\n\n`], 100).events).toHaveLength(1)
  })

  it('names the size and not the content of a line that is no SSE', () => {
    const decoder = createSseDecoder(() => {})
    let message = ''
    try {
      decoder.push('<html>secret page</html>\n')
    } catch (error) {
      message = (error as Error).message
    }
    expect(message).toBe('malformed SSE line from upstream (24 characters; not an event stream)')
    // A body refused while streaming has nothing more to dispatch at its end.
    expect(() => decoder.end()).not.toThrow()
  })

  it('refuses an unfinished last line that is no SSE when the body ends', () => {
    const decoder = createSseDecoder(() => {})
    decoder.push('data: ok\n\n{"choices":[]}')
    expect(codeOf(() => decoder.end())).toBe('upstream_stream')
  })

  it('ignores a retry hint that is not a number, and ids', () => {
    expect(decode(['retry: soon\nid: 4\ndata: x\n\n']).events).toEqual([{ event: undefined, data: 'x' }])
  })

  it('dispatches a last event whose line ended with a lone CR', () => {
    expect(decode(['data: a\n\ndata: b\r']).events).toEqual([
      { event: undefined, data: 'a' },
      { event: undefined, data: 'b' },
    ])
  })
})
