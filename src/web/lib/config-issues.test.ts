import { describe, expect, it } from 'vitest'
import { findIssuesFor, normalizeIssuePath, normalizeIssues } from './config-issues.js'

describe('config issues', () => {
  it('normalizes paths given as strings, pointers or arrays', () => {
    expect(normalizeIssuePath('llm.temperature')).toBe('llm.temperature')
    expect(normalizeIssuePath(['llm', 'fallbacks', 0, 'provider'])).toBe('llm.fallbacks.0.provider')
    expect(normalizeIssuePath('/llm/temperature')).toBe('llm.temperature')
    expect(normalizeIssuePath('$.llm.fallbacks[1].model')).toBe('llm.fallbacks.1.model')
    expect(normalizeIssues([{ path: ['a'], message: 'bad' }, null])).toEqual([
      { path: 'a', message: 'bad' },
      { path: '', message: '' },
    ])
  })

  it('finds the issues of a field, and those below it when asked', () => {
    const issues = [
      { path: 'llm.temperature', message: 'Too big: expected number to be <=2' },
      { path: 'llm.fallbacks.0.provider', message: 'required' },
    ]
    expect(findIssuesFor(issues, 'llm.temperature')).toEqual(['Too big: expected number to be <=2'])
    expect(findIssuesFor(issues, 'llm.fallbacks')).toEqual([])
    expect(findIssuesFor(issues, 'llm.fallbacks', { below: true })).toEqual(['0.provider: required'])
    expect(findIssuesFor(issues, 'llm.temp')).toEqual([])
  })
})
