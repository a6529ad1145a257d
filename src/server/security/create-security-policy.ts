/**
 * The allowlists every request is checked against, compiled once from `server.*` and compiled again
 * only when the config object changes (a reload makes a new one), so a request costs a few lookups.
 *
 * Hosts: a browser only sends a `Host` it got from the page's own address, so a name the attacker
 * owns (DNS rebinding: evil.example resolving to 127.0.0.1) is what must be refused. IP literals
 * cannot be rebound and are allowed, as are `localhost`, `*.localhost`, the bound host and
 * `server.allowed_hosts` (a leading dot covers subdomains; `*` turns the check off).
 */
import ipaddr from 'ipaddr.js'
import type { CharpipeConfig } from '../../config/schema.js'

export interface SecurityPolicy {
  /** Whether a `Host` header value (`name[:port]`, `[v6]:port`) names this server. */
  isHostAllowed(host: string): boolean
  /** Whether `origin` is the server's own (same host as the request's `Host`) or listed. */
  isOriginAllowed(origin: string, host: string): boolean
  /** Whether `origin` is one of `server.allowed_origins` (the only ones granted CORS). */
  isCorsOrigin(origin: string): boolean
}

export interface CreateSecurityPolicyOptions {
  server: Pick<CharpipeConfig['server'], 'host' | 'allowed_hosts' | 'allowed_origins'>
  /** The host the server actually listens on, when it differs from `server.host` (`--host`). */
  boundHost?: string
}

// Enough for every name a server is really reached by; a flood of made-up hosts only resets it.
const hostCacheLimit = 64

export function createSecurityPolicy(options: CreateSecurityPolicyOptions): SecurityPolicy {
  const { server } = options
  const anyHost = server.allowed_hosts.includes('*')
  const exactHosts = new Set<string>()
  const suffixes: string[] = []
  for (const entry of [server.host, options.boundHost ?? '', ...server.allowed_hosts]) {
    const name = normalizeHostName(entry)
    if (!name) continue
    if (name.startsWith('.')) {
      suffixes.push(name)
      exactHosts.add(name.slice(1))
    } else exactHosts.add(name)
  }
  const corsOrigins = new Set(server.allowed_origins.map((origin) => origin.toLowerCase()))
  const decided = new Map<string, boolean>()

  const decideHost = (host: string): boolean => {
    const name = readHostName(host)
    if (name === undefined) return false
    if (anyHost || exactHosts.has(name) || isIpLiteral(name)) return true
    if (name === 'localhost' || name.endsWith('.localhost')) return true
    return suffixes.some((suffix) => name.endsWith(suffix))
  }

  return {
    isHostAllowed(host) {
      let allowed = decided.get(host)
      if (allowed === undefined) {
        allowed = decideHost(host)
        if (decided.size >= hostCacheLimit) decided.clear()
        decided.set(host, allowed)
      }
      return allowed
    },
    isOriginAllowed(origin, host) {
      if (isSameHostOrigin(origin, host)) return true
      return corsOrigins.has(origin) || corsOrigins.has(origin.toLowerCase())
    },
    isCorsOrigin(origin) {
      return corsOrigins.has(origin) || corsOrigins.has(origin.toLowerCase())
    },
  }
}

/**
 * A reader that hands out the policy for the running config, compiling a new one when the `server`
 * section object changes (every reload parses a new config object).
 */
export function createSecurityPolicyReader(
  readServer: () => CreateSecurityPolicyOptions['server'],
  boundHost?: string,
): () => SecurityPolicy {
  let compiledFor: CreateSecurityPolicyOptions['server'] | undefined
  let policy: SecurityPolicy | undefined
  return () => {
    const server = readServer()
    if (server !== compiledFor || !policy) {
      policy = createSecurityPolicy({ server, boundHost })
      compiledFor = server
    }
    return policy
  }
}

// `http://` + host or `https://` + host, compared without building strings in the common case.
function isSameHostOrigin(origin: string, host: string): boolean {
  const schemeLength = origin.startsWith('https://') ? 8 : origin.startsWith('http://') ? 7 : 0
  if (schemeLength === 0 || origin.length - schemeLength !== host.length) return false
  if (origin.endsWith(host)) return true
  return origin.slice(schemeLength).toLowerCase() === host.toLowerCase()
}

function normalizeHostName(value: string): string {
  return value
    .trim()
    .toLowerCase()
    .replace(/^\[|\]$/g, '')
    .replace(/\.$/, '')
}

/** The host name of a `Host` header value, lower case, without brackets, port or final dot; undefined when malformed. */
export function readHostName(host: string): string | undefined {
  let name: string
  let rest: string
  if (host.startsWith('[')) {
    const end = host.indexOf(']')
    if (end === -1) return undefined
    name = host.slice(1, end)
    if (!ipaddr.IPv6.isValid(name)) return undefined
    rest = host.slice(end + 1)
  } else {
    const colon = host.indexOf(':')
    name = colon === -1 ? host : host.slice(0, colon)
    rest = colon === -1 ? '' : host.slice(colon)
    if (!/^[A-Za-z0-9._-]+$/.test(name)) return undefined
  }
  if (rest !== '' && !/^:\d{1,5}$/.test(rest)) return undefined
  return name.toLowerCase().replace(/\.$/, '')
}

function isIpLiteral(name: string): boolean {
  return name.includes(':') ? ipaddr.IPv6.isValid(name) : ipaddr.IPv4.isValidFourPartDecimal(name)
}
