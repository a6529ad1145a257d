import { describe, expect, it } from 'vitest'
import { isToolResultContent } from '../tool-result-content.js'
import { convertToolResult, McpToolError } from './convert-tool-result.js'

const options = { maxChars: 50 }

describe('convertToolResult', () => {
  it('keeps images beside the text, in order; as JSON they are placeholders', () => {
    const answer = {
      content: [
        { type: 'text', text: 'one' },
        { type: 'image', mimeType: 'image/png', data: 'AAAA' },
        { type: 'text', text: 'two' },
      ],
    }
    const result = convertToolResult(answer, options)
    if (!isToolResultContent(result)) throw new Error('expected a ToolResultContent')
    expect(result.parts).toEqual([
      { type: 'text', text: 'one' },
      { type: 'image', mediaType: 'image/png', url: 'data:image/png;base64,AAAA' },
      { type: 'text', text: 'two' },
    ])
    expect(JSON.stringify({ result })).toBe(
      JSON.stringify({ result: 'one\n[image image/png not shown]\ntwo' }),
    )
  })

  it('describes what the model cannot take: audio, images without data or of no image type', () => {
    const answer = {
      content: [
        { type: 'audio', mimeType: 'audio/wav', data: 'AAAA' },
        { type: 'image', mimeType: 'text/html', data: 'AAAA' },
        { type: 'image', mimeType: 'image/png' },
      ],
    }
    expect(convertToolResult(answer, { maxChars: 500 })).toBe(
      '[audio audio/wav not shown]\n[image text/html not shown]\n[image image/png not shown]',
    )
  })

  it('cuts the text of a result with images and keeps the images', () => {
    const answer = {
      content: [
        { type: 'text', text: 'a'.repeat(40) },
        { type: 'image', mimeType: 'image/jpeg', data: 'BBBB' },
        { type: 'text', text: 'b'.repeat(40) },
      ],
    }
    const result = convertToolResult(answer, options)
    if (!isToolResultContent(result)) throw new Error('expected a ToolResultContent')
    expect(result.parts).toEqual([
      { type: 'text', text: 'a'.repeat(40) },
      { type: 'image', mediaType: 'image/jpeg', url: 'data:image/jpeg;base64,BBBB' },
      { type: 'text', text: 'b'.repeat(10) },
      { type: 'text', text: '[result cut: 80 characters, only the first 50 shown]' },
    ])
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
