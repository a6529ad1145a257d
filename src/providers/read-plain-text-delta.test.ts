import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { readPlainTextDelta } from './read-plain-text-delta.js'

/** What the JSON parser makes of `data`: the delta's text, or undefined (not JSON, not a text delta). */
function parseTextDelta(data: string): string | undefined {
  try {
    const event = JSON.parse(data)
    return event?.type === 'content_block_delta' && event.delta?.type === 'text_delta'
      ? event.delta.text
      : undefined
  } catch {
    return undefined
  }
}

const compact = (index: string, text: string) =>
  `{"type":"content_block_delta","index":${index},"delta":{"type":"text_delta","text":"${text}"}}`

describe('readPlainTextDelta', () => {
  it("reads the text of a delta in the API's compact form without parsing", () => {
    expect(readPlainTextDelta(compact('0', '你好'))).toBe('你好')
    expect(readPlainTextDelta(compact('12', 'Hello, world'))).toBe('Hello, world')
    expect(readPlainTextDelta(compact('0', ''))).toBe('')
  })

  it('leaves every other shape to the JSON parser', () => {
    const others = [
      compact('0', 'a\\nb'),
      compact('0', 'say \\"hi\\"'),
      compact('0', '\\u4f60'),
      compact('01', 'a'),
      compact('-1', 'a'),
      compact('', 'a'),
      compact('0', 'a"b'),
      compact('0', 'a\nb'),
      '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"}}',
      '{"type":"content_block_delta", "index":0,"delta":{"type":"text_delta","text":"a"}}',
      '{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"a"}}',
      '{"type":"content_block_delta","index":0,"delta":{"text":"a","type":"text_delta"}}',
      '{"type":"ping"}',
    ]
    for (const data of others) expect(readPlainTextDelta(data), data).toBeUndefined()
  })

  it('never disagrees with JSON.parse', () => {
    const pieces = fc.constantFrom(
      'a',
      '你',
      '"',
      '\\',
      '\\n',
      '\\"',
      '\n',
      '\t',
      '}',
      '"}}',
      ',',
      '\ud83d',
      '😀',
      ' ',
    )
    const text = fc.array(pieces, { maxLength: 8 }).map((parts) => parts.join(''))
    const index = fc.constantFrom('0', '1', '10', '01', '', 'x', '0,"a":1')
    fc.assert(
      fc.property(index, text, (indexText, deltaText) => {
        const data = compact(indexText, deltaText)
        const fast = readPlainTextDelta(data)
        if (fast !== undefined) expect(fast).toBe(parseTextDelta(data))
      }),
      { numRuns: 2000 },
    )
  })
})
