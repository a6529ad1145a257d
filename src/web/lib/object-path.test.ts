import { describe, expect, it } from 'vitest'
import { getAtPath, isJsonEqual, setAtPath } from './object-path.js'

describe('object paths', () => {
  it('reads and writes nested objects and arrays without changing the original', () => {
    const original = { llm: { fallbacks: [{ provider: 'a', model: '' }] } }
    const updated = setAtPath(original, 'llm.fallbacks.0.model', 'm')
    expect(getAtPath(updated, 'llm.fallbacks.0.model')).toBe('m')
    expect(original.llm.fallbacks[0]?.model).toBe('')
    expect(Array.isArray(getAtPath(updated, 'llm.fallbacks'))).toBe(true)
    expect(getAtPath(updated, 'llm.missing.deep')).toBeUndefined()
    expect(setAtPath({}, 'a.b', 1)).toEqual({ a: { b: 1 } })
    expect(isJsonEqual({ a: [1] }, { a: [1] })).toBe(true)
    expect(isJsonEqual({ a: [1] }, { a: [2] })).toBe(false)
  })
})
