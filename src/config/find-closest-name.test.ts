import { describe, expect, it } from 'vitest'
import { findClosestName, measureEditDistance, suggestClosestName } from './find-closest-name.js'

describe('measureEditDistance', () => {
  it.each([
    ['', '', 0],
    ['model', 'model', 0],
    ['modle', 'model', 1],
    ['ab', 'ba', 1],
    ['deepseak', 'deepseek', 1],
    ['top_kk', 'top_k', 1],
    ['', 'abc', 3],
    ['kitten', 'sitting', 3],
  ])('%s → %s is %i', (from, to, distance) => {
    expect(measureEditDistance(from, to)).toBe(distance)
    expect(measureEditDistance(to, from)).toBe(distance)
  })
})

describe('findClosestName', () => {
  it('finds the nearest candidate within reach', () => {
    expect(findClosestName('modle', ['provider', 'model', 'base_url'])).toBe('model')
    expect(findClosestName('deepseak', ['openai', 'deepseek', 'moonshot'])).toBe('deepseek')
    expect(findClosestName('token-limiterr', ['session-loader', 'token-limiter'])).toBe('token-limiter')
    expect(findClosestName('custom.yml', ['custom.yaml', 'config.yaml'])).toBe('custom.yaml')
    expect(findClosestName('TEMPERATURE', ['temperature'])).toBe('temperature')
  })

  it('suggests nothing when every candidate is far', () => {
    expect(findClosestName('zzz', ['model', 'provider'])).toBeUndefined()
    expect(findClosestName('anything', [])).toBeUndefined()
    expect(suggestClosestName('zzz', ['model'])).toBe('')
    expect(suggestClosestName('modle', ['model'])).toBe(' (did you mean `model`?)')
  })
})
