import { describe, expect, it } from 'vitest'
import { convertToolResult, McpToolError } from './convert-tool-result.js'

const options = { maxChars: 50 }

describe('convertToolResult', () => {
  it('joins text parts and describes what the model cannot read', () => {
    const answer = {
      content: [
        { type: 'text', text: 'one' },
        { type: 'image', mimeType: 'image/png', data: 'AAAA' },
        { type: 'text', text: 'two' },
      ],
    }
    expect(convertToolResult(answer, options)).toBe('one\n[image image/png not shown]\ntwo')
  })

  it('gives structured content as JSON', () => {
    expect(convertToolResult({ content: [], structuredContent: { a: 1 } }, options)).toBe('{"a":1}')
  })

  it('throws an error answer so it reaches the model as an error', () => {
    expect(() =>
      convertToolResult({ content: [{ type: 'text', text: 'nope' }], isError: true }, options),
    ).toThrow(McpToolError)
  })

  it('cuts long results with a note', () => {
    const text = convertToolResult({ content: [{ type: 'text', text: 'y'.repeat(80) }] }, options) as string
    expect(text).toBe(`${'y'.repeat(50)}\n[result cut: 80 characters, only the first 50 shown]`)
  })
})
