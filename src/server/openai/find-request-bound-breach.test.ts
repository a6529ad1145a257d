import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { findRequestBoundBreach, type V1Endpoint, type V1RequestBounds } from './find-request-bound-breach.js'

const bounds: V1RequestBounds = {
  v1_input_items: 3,
  v1_instructions_chars: 10,
  v1_tools: 2,
  v1_tool_schema_bytes: 40,
}
const endpoints: V1Endpoint[] = ['chat_completions', 'responses']

describe('findRequestBoundBreach', () => {
  it.each([
    ['responses', { input: [{}, {}, {}, {}] }, 'input', 'server.limits.v1_input_items'],
    ['responses', { input: 'x'.repeat(100) }, undefined, undefined],
    [
      'responses',
      { input: 'Hi', instructions: 'x'.repeat(11) },
      'instructions',
      'server.limits.v1_instructions_chars',
    ],
    ['responses', { input: 'Hi', tools: [{}, {}, {}] }, 'tools', 'server.limits.v1_tools'],
    [
      'responses',
      { input: 'Hi', tools: [{ parameters: { description: 'x'.repeat(40) } }] },
      'tools',
      'server.limits.v1_tool_schema_bytes',
    ],
    ['chat_completions', { messages: [{}, {}, {}, {}] }, 'messages', 'server.limits.v1_input_items'],
    [
      'chat_completions',
      {
        messages: [
          { role: 'system', content: 'x'.repeat(6) },
          { role: 'developer', content: [{ type: 'text', text: 'y'.repeat(5) }] },
        ],
      },
      'messages',
      'server.limits.v1_instructions_chars',
    ],
    ['chat_completions', { messages: [{ role: 'user', content: 'x'.repeat(100) }] }, undefined, undefined],
    [
      'chat_completions',
      { messages: [], tools: [{ function: { parameters: { description: 'x'.repeat(40) } } }] },
      'tools',
      'server.limits.v1_tool_schema_bytes',
    ],
  ] as const)('%s %j → %s', (endpoint, body, param, setting) => {
    const breach = findRequestBoundBreach({ endpoint, body, bounds })
    if (param === undefined) expect(breach).toBeUndefined()
    else expect(breach).toEqual({ param, message: expect.stringContaining(setting!) })
  })

  it('never throws on any JSON, and refuses every list of items past the bound and none within it', () => {
    fc.assert(
      fc.property(fc.constantFrom(...endpoints), fc.jsonValue(), (endpoint, body) => {
        findRequestBoundBreach({ endpoint, body, bounds })
      }),
    )
    fc.assert(
      fc.property(
        fc.constantFrom(...endpoints),
        fc.array(fc.jsonValue(), { maxLength: 8 }),
        (endpoint, items) => {
          const field = endpoint === 'responses' ? 'input' : 'messages'
          const breach = findRequestBoundBreach({ endpoint, body: { [field]: items }, bounds })
          if (items.length > bounds.v1_input_items) expect(breach?.param).toBe(field)
          else expect(breach?.message ?? '').not.toContain('v1_input_items')
        },
      ),
    )
  })
})
