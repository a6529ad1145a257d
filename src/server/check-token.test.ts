import { describe, expect, it } from 'vitest'
import { isTokenValid, readPresentedToken } from './check-token.js'
import { isLoopbackHost } from './is-loopback-host.js'

describe('tokens', () => {
  it('accepts only the exact token', () => {
    expect(isTokenValid('secret-token', 'secret-token')).toBe(true)
    expect(isTokenValid('secret-tokeN', 'secret-token')).toBe(false)
    expect(isTokenValid('secret', 'secret-token')).toBe(false)
    expect(isTokenValid(undefined, 'secret-token')).toBe(false)
  })

  it('reads a bearer header first, then ?token=', () => {
    expect(readPresentedToken('Bearer abc', '/ws?token=def')).toBe('abc')
    expect(readPresentedToken(undefined, '/ws?token=def')).toBe('def')
    expect(readPresentedToken('Basic abc', '/ws')).toBeUndefined()
  })

  it('ignores ?token= when the route does not take it (no url given)', () => {
    expect(readPresentedToken(undefined)).toBeUndefined()
    expect(readPresentedToken('Bearer abc')).toBe('abc')
  })
})

describe('isLoopbackHost', () => {
  it.each([
    ['127.0.0.1', true],
    ['127.1.2.3', true],
    ['localhost', true],
    ['::1', true],
    ['[::1]', true],
    ['0.0.0.0', false],
    ['::', false],
    ['192.168.1.5', false],
    ['example.com', false],
  ])('%s → %s', (host, expected) => {
    expect(isLoopbackHost(host)).toBe(expected)
  })
})
