import { describe, expect, it } from 'vitest'
import { createSecurityPolicy, createSecurityPolicyReader, readHostName } from './create-security-policy.js'

describe('readHostName', () => {
  it.each([
    ['127.0.0.1:8080', '127.0.0.1'],
    ['[::1]:8080', '::1'],
    ['Example.COM.', 'example.com'],
    ['example.com:99999999', undefined],
    ['[zz]:1', undefined],
    ['exa mple.com', undefined],
    ['a:b', undefined],
  ])('%j → %j', (host, name) => {
    expect(readHostName(host)).toBe(name)
  })
})

describe('createSecurityPolicy', () => {
  const policy = createSecurityPolicy({
    server: { host: '127.0.0.1', allowed_hosts: [], allowed_origins: ['https://App.example.com'] },
  })

  it('compares allowed origins without regard to case', () => {
    expect(policy.isCorsOrigin('https://app.example.com')).toBe(true)
    expect(policy.isCorsOrigin('https://app.example.com.evil.example')).toBe(false)
    expect(policy.isOriginAllowed('HTTP://127.0.0.1:8080', '127.0.0.1:8080')).toBe(false)
    expect(policy.isOriginAllowed('http://LOCALHOST:8080', 'localhost:8080')).toBe(true)
  })

  it('is compiled again only when the server section changes', () => {
    let server = { host: '127.0.0.1', allowed_hosts: ['a.example'], allowed_origins: [] as string[] }
    const read = createSecurityPolicyReader(() => server)
    const first = read()
    expect(read()).toBe(first)
    expect(first.isHostAllowed('b.example')).toBe(false)
    server = { ...server, allowed_hosts: ['b.example'] }
    expect(read()).not.toBe(first)
    expect(read().isHostAllowed('b.example')).toBe(true)
  })
})
