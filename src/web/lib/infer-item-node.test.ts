import { describe, expect, it } from 'vitest'
import { inferItemNode } from './infer-item-node.js'

describe('inferItemNode', () => {
  it('gives regex rules columns from a template when the list is empty', () => {
    const node = inferItemNode('rules', [])
    expect(Object.keys(node?.properties ?? {})).toEqual([
      'pattern',
      'flags',
      'replacement',
      'scope',
      'enabled',
    ])
    expect(node?.properties?.scope?.enum).toContain('output-display')
    expect(node?.properties?.enabled?.type).toBe('boolean')
  })

  it('takes columns and types from the rows', () => {
    const node = inferItemNode('depth_injections', [{ content: 'x', role: 'user', depth: 2 }])
    expect(node?.properties?.depth?.type).toBe('number')
    expect(node?.properties?.role?.enum).toEqual(['system', 'user', 'assistant'])
  })

  it('gives up on nested values or unknown empty lists', () => {
    expect(inferItemNode('rules', [{ pattern: 'a', scope: ['input', 'history'] }])).toBeUndefined()
    expect(inferItemNode('rules', ['text'])).toBeUndefined()
    expect(inferItemNode('unknown', [])).toBeUndefined()
  })
})
