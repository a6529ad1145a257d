/**
 * A stored secret stays with the host it was given for. A change that moves a provider to another
 * host (its `base_url`, its provider's default address, the OpenClaw `url`, a remote MCP server's `url` for its headers) while leaving the key as
 * `***` (or out) would send the stored key to that host with the next request; anyone able to send
 * such a change could collect the key. Such a change is refused with a field issue asking for the
 * key again; giving the key (or an empty one) in the same change is fine.
 */

import type { ConfigIssue } from '../shared/errors.js'
import { MASK } from '../shared/redact.js'
import { substituteEnvVariables } from './env-substitution.js'
import { lookupProvider } from './provider-registry.js'

interface SecretBinding {
  /** Path of the object holding the secret and its address; `*` is every item of a list. */
  holder: readonly string[]
  secret: string
  url: string
  /** The field naming the provider whose default address applies when `url` is empty. */
  provider?: string
  /** The provider when the holder names none. */
  defaultProvider?: string
  /** The address when `url` is empty and there is no provider. */
  defaultUrl?: string
}

const bindings: readonly SecretBinding[] = [
  { holder: ['llm'], secret: 'api_key', url: 'base_url', provider: 'provider', defaultProvider: 'mock' },
  { holder: ['llm', 'fallbacks', '*'], secret: 'api_key', url: 'base_url', provider: 'provider' },
  { holder: ['llm', 'vision_describer'], secret: 'api_key', url: 'base_url', provider: 'provider' },
  {
    holder: ['llm', 'transcriber'],
    secret: 'api_key',
    url: 'base_url',
    provider: 'provider',
    defaultProvider: 'openai',
  },
  {
    holder: ['memory', 'embeddings'],
    secret: 'api_key',
    url: 'base_url',
    provider: 'provider',
    defaultProvider: 'openai',
  },
  { holder: ['openclaw'], secret: 'token', url: 'url', defaultUrl: 'http://localhost:18789' },
]

type Mapping = Record<string, unknown>

/** The secrets this binding guards (a remote MCP server's headers included), `*` for every item or entry. */
export const boundSecretFieldPaths: readonly (readonly string[])[] = [
  ...bindings.map((binding) => [...binding.holder, binding.secret]),
  ['tools', 'mcp_servers', '*', 'headers', '*'],
]

function isRecord(value: unknown): value is Mapping {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
}

/**
 * The issues (one per secret) for a change `incoming` (a masked, possibly partial config) that would
 * carry a secret of `stored` (the config it applies to) to another host. Empty when there is none.
 */
export function bindSecretsToHosts(incoming: unknown, stored: unknown): ConfigIssue[] {
  const issues: ConfigIssue[] = []
  for (const binding of bindings) {
    for (const pair of collectHolders(incoming, stored, binding.holder, 0, [], false)) {
      const issue = checkHolder(binding, pair)
      if (issue) issues.push(issue)
    }
  }
  issues.push(...bindMcpHeadersToHosts(incoming, stored))
  return issues
}

/** A remote MCP server's headers (its credentials) stay with the host of its `url`, one by one. */
function bindMcpHeadersToHosts(incoming: unknown, stored: unknown): ConfigIssue[] {
  const incomingServers = readMapping(incoming, ['tools', 'mcp_servers'])
  const storedServers = readMapping(stored, ['tools', 'mcp_servers'])
  if (!incomingServers || !storedServers) return []
  const issues: ConfigIssue[] = []
  for (const [name, server] of Object.entries(incomingServers)) {
    const before = storedServers[name]
    if (!isRecord(server) || !isRecord(before) || !isRecord(before.headers)) continue
    const beforeHost = readUrlHost(before.url)
    const afterHost = readUrlHost(server.url === undefined ? before.url : server.url)
    if (beforeHost === afterHost) continue
    const given = isRecord(server.headers) ? server.headers : {}
    for (const [header, value] of Object.entries(before.headers)) {
      if (typeof value !== 'string' || value === '') continue
      // Own keys only: a stored header named `valueOf` left out is not given by Object.prototype.
      if (Object.hasOwn(given, header) && given[header] !== undefined && given[header] !== MASK) continue
      issues.push({
        path: `tools.mcp_servers.${name}.headers.${header}`,
        message: `re-enter the header: the url host changed (${beforeHost || 'none'} → ${afterHost || 'none'}), and a stored header is only sent to the host it was given for`,
      })
    }
  }
  return issues
}

function readMapping(value: unknown, path: readonly string[]): Mapping | undefined {
  let current = value
  for (const key of path) current = isRecord(current) ? current[key] : undefined
  return isRecord(current) ? current : undefined
}

function readUrlHost(url: unknown): string {
  const expanded = substituteEnvVariables(typeof url === 'string' ? url : '').value
  try {
    return new URL(expanded).host.toLowerCase()
  } catch {
    return expanded
  }
}

interface HolderPair {
  path: string[]
  incoming: Mapping
  stored: Mapping
  /** A list item replaces the stored one whole; a mapping is merged into it. */
  replaced: boolean
}

function collectHolders(
  incoming: unknown,
  stored: unknown,
  holderPath: readonly string[],
  depth: number,
  path: string[],
  replaced: boolean,
): HolderPair[] {
  if (depth === holderPath.length) {
    return isRecord(incoming) && isRecord(stored) ? [{ path, incoming, stored, replaced }] : []
  }
  const key = holderPath[depth]!
  if (key === '*') {
    if (!Array.isArray(incoming) || !Array.isArray(stored)) return []
    return incoming.flatMap((item, index) =>
      collectHolders(item, stored[index], holderPath, depth + 1, [...path, String(index)], true),
    )
  }
  if (!isRecord(incoming) || !isRecord(stored)) return []
  return collectHolders(incoming[key], stored[key], holderPath, depth + 1, [...path, key], replaced)
}

function checkHolder(binding: SecretBinding, pair: HolderPair): ConfigIssue | undefined {
  const storedSecret = pair.stored[binding.secret]
  if (typeof storedSecret !== 'string' || storedSecret === '') return undefined
  const given = pair.incoming[binding.secret]
  // `***` keeps the stored key; so does leaving it out of a mapping that is merged into the stored one.
  const carried = given === MASK || (given === undefined && !pair.replaced)
  if (!carried) return undefined
  const next = pair.replaced ? pair.incoming : { ...pair.stored, ...pair.incoming }
  const before = readHost(binding, pair.stored)
  const after = readHost(binding, next)
  if (before === after) return undefined
  const field = [...pair.path, binding.secret].join('.')
  return {
    path: field,
    message: `re-enter the key: the ${binding.url} host changed (${before || 'none'} → ${after || 'none'}), and a stored key is only sent to the host it was given for`,
  }
}

function readHost(binding: SecretBinding, holder: Mapping): string {
  let url = typeof holder[binding.url] === 'string' ? (holder[binding.url] as string) : ''
  if (url === '' && binding.provider) {
    const provider = holder[binding.provider]
    const name = typeof provider === 'string' && provider !== '' ? provider : binding.defaultProvider
    if (name) url = lookupProvider(name).defaultBaseUrl
  }
  if (url === '') url = binding.defaultUrl ?? ''
  // The file may name the address as `${VAR}`: compare what it stands for.
  const expanded = substituteEnvVariables(url).value
  try {
    return new URL(expanded).host.toLowerCase()
  } catch {
    return expanded
  }
}
