import { describe, expect, it } from 'vitest'
import { isJsonNestedTooDeep } from './is-json-nested-too-deep.js'

const nest = (depth: number) => '['.repeat(depth) + ']'.repeat(depth)

describe('isJsonNestedTooDeep', () => {
  it('lets ordinary bodies through', () => {
    expect(isJsonNestedTooDeep('{"text":"hi","images":["a"],"metadata":{"a":{"b":[1,2]}}}')).toBe(false)
    expect(isJsonNestedTooDeep(nest(64))).toBe(false)
  })

  it('finds nesting past the limit, in objects and arrays alike', () => {
    expect(isJsonNestedTooDeep(nest(65))).toBe(true)
    expect(isJsonNestedTooDeep(`${'{"a":'.repeat(100)}1${'}'.repeat(100)}`)).toBe(true)
    expect(isJsonNestedTooDeep(nest(200_000))).toBe(true)
  })

  it('does not count brackets inside strings, escaped quotes included', () => {
    expect(isJsonNestedTooDeep(JSON.stringify({ text: '['.repeat(1000) }))).toBe(false)
    expect(isJsonNestedTooDeep(JSON.stringify({ text: `"\\${'{'.repeat(1000)}` }))).toBe(false)
  })
})
