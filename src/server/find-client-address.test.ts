import { describe, expect, it } from 'vitest'
import { checkProxyEntry, findClientAddress } from './find-client-address.js'

describe('findClientAddress', () => {
  const proxies = ['10.0.0.0/8', '192.0.2.7', 'fd00::/8']
  const find = (socketAddress: string | undefined, forwardedFor?: string, trustedProxies = proxies) =>
    findClientAddress({ socketAddress, forwardedFor, trustedProxies })

  it.each([
    ['a client straight on the socket', '203.0.113.5', undefined, '203.0.113.5'],
    ['an untrusted peer that sends the header', '203.0.113.5', '198.51.100.1', '203.0.113.5'],
    ['a trusted proxy', '10.1.2.3', '198.51.100.1', '198.51.100.1'],
    ['a trusted proxy on a dual-stack socket', '::ffff:10.1.2.3', '198.51.100.1', '198.51.100.1'],
    ['a chain of trusted proxies', '192.0.2.7', '198.51.100.1, 10.9.9.9', '198.51.100.1'],
    ['a client that forged the header', '10.1.2.3', '1.1.1.1, 198.51.100.1', '198.51.100.1'],
    ['an IPv6 proxy', 'fd12::1', '2001:db8::5', '2001:db8::5'],
    ['a header of garbage', '10.1.2.3', 'not-an-address', '10.1.2.3'],
    ['only trusted hops', '10.1.2.3', '10.0.0.1', '10.0.0.1'],
    ['only trusted hops, the leftmost written by the client', '10.1.2.3', '10.6.6.6, 10.0.0.1', '10.0.0.1'],
  ])('%s', (_name, socket, forwarded, expected) => {
    expect(find(socket, forwarded)).toBe(expected)
  })

  it('believes no header without trusted proxies', () => {
    expect(find('10.1.2.3', '198.51.100.1', [])).toBe('10.1.2.3')
  })

  it('refuses entries that are no address or range, naming the problem', () => {
    expect(checkProxyEntry('10.0.0.0/8')).toBeUndefined()
    expect(checkProxyEntry('::1')).toBeUndefined()
    expect(checkProxyEntry('proxy.example.com')).toContain('CIDR')
    expect(checkProxyEntry('10.0.0.0/33')).toContain('/33')
  })
})
