import { describe, expect, it } from 'vitest'
import { createToolCallTextDetector, parseToolCallText, renderToolPrompt } from './tool-call-text.js'

function feed(chunks: string[]) {
  const detector = createToolCallTextDetector()
  const released = chunks.map((chunk) => detector.push(chunk)).join('')
  return { detector, released }
}

describe('tool calls written as text', () => {
  it('lets an ordinary reply through as soon as it cannot be a call', () => {
    const { detector, released } = feed(['你', '好。'])
    expect(detector.state).toBe('text')
    expect(released).toBe('你好。')
  })

  it('lets a JSON reply of the reply format through once it diverges from a call', () => {
    const { detector, released } = feed(['{"', 'emo', 'tion": "开心", "text": "好"}'])
    expect(detector.state).toBe('text')
    expect(released).toBe('{"emotion": "开心", "text": "好"}')
  })

  it('holds back a call split anywhere, with spaces and a code fence', () => {
    const text = '```json\n{ "tool_call": {"name": "weather", "arguments": {"city": "北京"}}}\n```'
    for (let cut = 1; cut < text.length; cut++) {
      const { detector, released } = feed([text.slice(0, cut), text.slice(cut)])
      expect(released).toBe('')
      expect(detector.state).toBe('call')
      expect(parseToolCallText(detector.heldText)).toEqual([
        { id: 'call_0', name: 'weather', arguments: { city: '北京' } },
      ])
    }
  })

  it('parses several calls and string arguments; refuses malformed ones', () => {
    expect(
      parseToolCallText(
        '{"tool_calls": [{"name": "a", "arguments": "{\\"x\\": 1}"}, {"name": "b", "id": "k"}]}',
      ),
    ).toEqual([
      { id: 'call_0', name: 'a', arguments: { x: 1 } },
      { id: 'k', name: 'b', arguments: {} },
    ])
    expect(parseToolCallText('{"tool_call": {"name": "a"')).toBeUndefined()
    expect(parseToolCallText('{"tool_call": {"arguments": {}}}')).toBeUndefined()
    expect(parseToolCallText('你好')).toBeUndefined()
  })

  it('describes each tool with its schema in the prompt', () => {
    const prompt = renderToolPrompt([
      {
        name: 'weather',
        description: '查询天气',
        parameters: { type: 'object', properties: { city: { type: 'string' } } },
      },
    ])
    expect(prompt).toContain('- weather: 查询天气')
    expect(prompt).toContain('"city":{"type":"string"}')
    expect(prompt).toContain('{"tool_call": {"name": "<工具名>", "arguments": {<参数>}}}')
  })
})
