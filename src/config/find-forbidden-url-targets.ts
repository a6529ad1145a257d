/**
 * Addresses the server must not be pointed at through the admin API: link-local ranges (where cloud
 * instance metadata lives, 169.254.169.254 handing out the machine's credentials) and the metadata
 * services' other addresses and names. Private and loopback targets stay allowed: a local model
 * server is a main use. Names are resolved, so a public name pointing at 169.254.169.254 is caught
 * too. The config file is trusted and is not checked.
 */
import { lookup as lookupName } from 'node:dns/promises'
import ipaddr from 'ipaddr.js'
import type { ConfigIssue } from '../shared/errors.js'
import { isForbiddenKey } from '../shared/find-forbidden-key.js'
import { listFieldPaths } from './gate/config-field-trust.js'

/** Fields holding the address of an outbound service, `*` for every item of a list or entry of a map. */
export const outboundUrlFieldPaths: readonly (readonly string[])[] = listFieldPaths('outbound-url')

const metadataNames = new Set([
  'metadata.google.internal',
  'metadata.goog',
  'metadata',
  'instance-data',
  'instance-data.ec2.internal',
])
// Metadata services outside the link-local ranges (Alibaba Cloud; AWS over IPv6).
const metadataAddresses = new Set(['100.100.100.200', 'fd00:ec2::254'])

export type LookupAddresses = (host: string) => Promise<string[]>

const lookupAll: LookupAddresses = async (host) =>
  (await lookupName(host, { all: true, verbatim: true })).map((entry) => entry.address)

/** True for a link-local or cloud metadata address (IPv4, IPv6, IPv4-mapped IPv6). */
function isForbiddenAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false
  const parsed = ipaddr.process(address)
  if (parsed.range() === 'linkLocal') return true
  return metadataAddresses.has(parsed.toNormalizedString()) || metadataAddresses.has(parsed.toString())
}

/** Why `url` may not be a target, or undefined when it may. Unresolvable names are left to the request. */
async function findForbiddenUrlTarget(
  url: string,
  lookup: LookupAddresses = lookupAll,
): Promise<string | undefined> {
  if (url === '') return undefined
  let host: string
  try {
    host = new URL(url).hostname
      .replace(/^\[|\]$/g, '')
      .replace(/\.$/, '')
      .toLowerCase()
  } catch {
    return undefined // The schema or the provider reports a malformed address.
  }
  const refusal = `${host} is a link-local or cloud metadata address; set it in the config file if it is really meant`
  if (metadataNames.has(host) || isForbiddenAddress(host)) return refusal
  if (ipaddr.isValid(host)) return undefined
  let addresses: string[]
  try {
    addresses = await lookup(host)
  } catch {
    return undefined
  }
  return addresses.some(isForbiddenAddress) ? `${refusal} (${host} resolves to one)` : undefined
}

export interface FindForbiddenUrlTargetsOptions {
  /** The config a change would make. */
  candidate: unknown
  /** The config running now: addresses it already uses (from the file) are not checked again. */
  running: unknown
  lookup?: LookupAddresses
}

/** One issue per outbound address that a change sets to a forbidden target. */
export async function findForbiddenUrlTargets(
  options: FindForbiddenUrlTargetsOptions,
): Promise<ConfigIssue[]> {
  const issues: ConfigIssue[] = []
  for (const fieldPath of outboundUrlFieldPaths) {
    for (const { path, value } of collectValues(options.candidate, fieldPath)) {
      if (typeof value !== 'string') continue
      if (readPath(options.running, path) === value) continue
      const reason = await findForbiddenUrlTarget(value, options.lookup)
      if (reason) issues.push({ path: path.join('.'), message: reason })
    }
  }
  return issues
}

function collectValues(value: unknown, fieldPath: readonly string[]): { path: string[]; value: unknown }[] {
  const found: { path: string[]; value: unknown }[] = []
  const walk = (current: unknown, depth: number, path: string[]) => {
    if (depth === fieldPath.length) {
      found.push({ path, value: current })
      return
    }
    if (current === null || typeof current !== 'object') return
    const key = fieldPath[depth]!
    if (key === '*') {
      // Every item of a list (fallbacks) or entry of a map (MCP servers).
      const entries = Array.isArray(current)
        ? current.map((item, index) => [String(index), item] as const)
        : Object.entries(current).filter(([name]) => !isForbiddenKey(name))
      for (const [name, item] of entries) walk(item, depth + 1, [...path, name])
      return
    }
    if (isForbiddenKey(key) || !Object.hasOwn(current, key)) return
    walk((current as Record<string, unknown>)[key], depth + 1, [...path, key])
  }
  walk(value, 0, [])
  return found
}

function readPath(value: unknown, path: readonly string[]): unknown {
  let current = value
  for (const key of path) {
    if (current === null || typeof current !== 'object' || !Object.hasOwn(current, key)) return undefined
    current = (current as Record<string, unknown>)[key]
  }
  return current
}
