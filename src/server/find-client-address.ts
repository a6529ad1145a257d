/**
 * The address of the client behind a request. The socket's peer is the client unless it is one of
 * `server.trusted_proxies` (addresses or CIDR ranges); then `X-Forwarded-For` is believed, read from
 * its end: each proxy appends the address it received the request from, so the first address from
 * the right that is not a trusted proxy is the client (what a client writes into the header itself
 * sits further left and is never taken, even when every hop names a trusted proxy). Without trusted proxies the header is ignored, so no
 * client can name itself someone else.
 */
import { BlockList, isIP } from 'node:net'

/** `::ffff:1.2.3.4` (IPv4 on a dual-stack socket) as `1.2.3.4`. */
function normaliseAddress(address: string): string {
  const trimmed = address.trim()
  return trimmed.toLowerCase().startsWith('::ffff:') && isIP(trimmed.slice(7)) === 4
    ? trimmed.slice(7)
    : trimmed
}

/** Why an entry of `server.trusted_proxies` is not an address or a CIDR range, or undefined. */
export function checkProxyEntry(entry: string): string | undefined {
  const [address, prefix, ...rest] = entry.split('/')
  const family = isIP(address ?? '')
  if (family === 0 || rest.length > 0) return 'expected an IP address or a CIDR range such as 10.0.0.0/8'
  if (prefix === undefined) return undefined
  const bits = Number(prefix)
  if (!/^\d+$/.test(prefix) || bits > (family === 4 ? 32 : 128))
    return `the prefix /${prefix} does not fit the address`
  return undefined
}

const lists = new WeakMap<readonly string[], BlockList>()

function compileProxies(entries: readonly string[]): BlockList {
  let list = lists.get(entries)
  if (list) return list
  list = new BlockList()
  for (const entry of entries) {
    if (checkProxyEntry(entry) !== undefined) continue
    const [address, prefix] = entry.split('/') as [string, string | undefined]
    const type = isIP(address) === 6 ? 'ipv6' : 'ipv4'
    if (prefix === undefined) list.addAddress(address, type)
    else list.addSubnet(address, Number(prefix), type)
  }
  lists.set(entries, list)
  return list
}

function isTrusted(list: BlockList, address: string): boolean {
  const family = isIP(address)
  return family !== 0 && list.check(address, family === 6 ? 'ipv6' : 'ipv4')
}

export interface FindClientAddressOptions {
  /** The socket's peer; undefined off a Node socket (`app.request` in tests). */
  socketAddress: string | undefined
  /** The `X-Forwarded-For` header. */
  forwardedFor: string | undefined
  /** `server.trusted_proxies`. */
  trustedProxies: readonly string[]
}

export function findClientAddress(options: FindClientAddressOptions): string | undefined {
  if (options.socketAddress === undefined) return undefined
  const peer = normaliseAddress(options.socketAddress)
  if (options.trustedProxies.length === 0 || !options.forwardedFor) return peer
  const list = compileProxies(options.trustedProxies)
  if (!isTrusted(list, peer)) return peer
  const hops = options.forwardedFor.split(',').map(normaliseAddress).filter(Boolean)
  for (let index = hops.length - 1; index >= 0; index--) {
    const hop = hops[index]!
    if (isIP(hop) === 0) return peer
    if (!isTrusted(list, hop)) return hop
  }
  // Every hop is a trusted proxy: the rightmost is the one the nearest proxy saw (the leftmost may
  // be what a client wrote into the header itself).
  return hops.at(-1) ?? peer
}
