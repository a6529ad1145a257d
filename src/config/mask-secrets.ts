/**
 * Secrets in the config are shown as `***` everywhere (admin API, web page, logs). A `***` sent back
 * by the web page means "keep what is stored", so saving a form never wipes a key it could not see.
 */
import { InvalidConfigError } from '../shared/errors.js'
import { isSecretKey, isSecretQueryKey, MASK, maskUrlCredentials } from '../shared/redact.js'
import { bindSecretsToHosts } from './bind-secrets-to-hosts.js'
import { type CharpipeConfig, secretFieldPaths } from './schema.js'

type Visitor = (holder: Record<string, unknown>, key: string) => void

function visitSecretFields(value: unknown, visit: Visitor): void {
  for (const path of secretFieldPaths) walk(value, path, 0, visit)
}

function walk(value: unknown, path: readonly string[], depth: number, visit: Visitor): void {
  if (value === null || typeof value !== 'object') return
  const key = path[depth]!
  if (key === '*') {
    // `*` is every entry: of a list (fallbacks) or of a map (MCP servers, their env and headers).
    if (Array.isArray(value)) for (const item of value) walk(item, path, depth + 1, visit)
    else if (depth === path.length - 1)
      for (const name of Object.keys(value)) visit(value as Record<string, unknown>, name)
    else for (const item of Object.values(value)) walk(item, path, depth + 1, visit)
    return
  }
  const holder = value as Record<string, unknown>
  if (depth === path.length - 1) {
    if (key in holder) visit(holder, key)
    return
  }
  walk(holder[key], path, depth + 1, visit)
}

/**
 * A deep copy with every non-empty secret replaced by `***`: the fields the schema marks secret,
 * any string under a secret-looking key (`api_key`, `token`, `password`… in processor options and
 * other free-form maps), and the credentials and secret query values of any URL.
 */
export function maskSecrets<T>(config: T): T {
  const copy = structuredClone(config)
  visitSecretFields(copy, (holder, key) => {
    if (typeof holder[key] === 'string' && holder[key] !== '') holder[key] = MASK
  })
  maskEveryString(copy)
  return copy
}

function maskEveryString(value: unknown): void {
  if (value === null || typeof value !== 'object') return
  const holder = value as Record<string, unknown>
  for (const key of Object.keys(holder)) {
    const item = holder[key]
    if (typeof item === 'string') {
      if (item !== '' && !Array.isArray(holder) && isSecretKey(key)) holder[key] = MASK
      else holder[key] = maskUrlCredentials(item)
    } else maskEveryString(item)
  }
}

/**
 * Puts back what `maskEveryString` hid: a `***` under a secret-looking key, and a URL whose masked
 * form is what the stored URL masks to. Walks `incoming` and `stored` side by side.
 */
function restoreEveryString(target: unknown, source: unknown): void {
  if (target === null || typeof target !== 'object') return
  const holder = target as Record<string, unknown>
  const sourceHolder =
    source !== null && typeof source === 'object' ? (source as Record<string, unknown>) : undefined
  for (const key of Object.keys(holder)) {
    const item = holder[key]
    const stored = sourceHolder?.[key]
    if (typeof item === 'string') {
      if (!item.includes(MASK)) continue
      if (item === MASK && isSecretKey(key)) holder[key] = typeof stored === 'string' ? stored : ''
      else if (typeof stored === 'string' && maskUrlCredentials(stored) === item) holder[key] = stored
    } else restoreEveryString(item, stored)
  }
}

/**
 * Puts the stored secrets back where `incoming` says `***`. Array entries (fallbacks) are matched by
 * position. Returns a new object; `incoming` is not changed. Throws `InvalidConfigError` when a kept
 * secret would go to another host than it was given for (see bindSecretsToHosts).
 */
export function restoreMaskedSecrets<T>(incoming: T, stored: unknown): T {
  const moved = bindSecretsToHosts(incoming, stored)
  if (moved.length > 0) throw new InvalidConfigError(moved)
  const copy = structuredClone(incoming)
  for (const path of secretFieldPaths) restoreAlong(copy, stored, path, 0)
  restoreEveryString(copy, stored)
  return copy
}

function restoreAlong(target: unknown, source: unknown, path: readonly string[], depth: number): void {
  if (target === null || typeof target !== 'object') return
  const key = path[depth]!
  if (key === '*') {
    if (!Array.isArray(target)) {
      restoreMapEntries(target as Record<string, unknown>, source, path, depth)
      return
    }
    for (const [index, item] of target.entries()) {
      restoreAlong(item, Array.isArray(source) ? source[index] : undefined, path, depth + 1)
    }
    return
  }
  const holder = target as Record<string, unknown>
  const sourceHolder =
    source !== null && typeof source === 'object' ? (source as Record<string, unknown>) : undefined
  if (depth === path.length - 1) {
    if (holder[key] === MASK) holder[key] = sourceHolder?.[key] ?? ''
    return
  }
  restoreAlong(holder[key], sourceHolder?.[key], path, depth + 1)
}

/** Map entries are matched by name (an MCP server, an env variable, a header). */
function restoreMapEntries(
  target: Record<string, unknown>,
  source: unknown,
  path: readonly string[],
  depth: number,
): void {
  const sourceMap =
    source !== null && typeof source === 'object' && !Array.isArray(source)
      ? (source as Record<string, unknown>)
      : undefined
  for (const name of Object.keys(target)) {
    // Own entries only: a masked header named `toString` the file lacks is empty, not a function.
    const stored = sourceMap && Object.hasOwn(sourceMap, name) ? sourceMap[name] : undefined
    if (depth === path.length - 1) {
      if (target[name] === MASK) target[name] = stored ?? ''
    } else restoreAlong(target[name], stored, path, depth + 1)
  }
}

/** Every non-empty secret value in a config (for log and error scrubbing). */
export function collectSecrets(config: CharpipeConfig): string[] {
  const values: string[] = []
  visitSecretFields(config, (holder, key) => {
    const value = holder[key]
    if (typeof value === 'string' && value !== '' && value !== MASK) values.push(value)
  })
  collectEveryString(config, values)
  return values
}

// Values under secret-looking keys, and URL passwords and secret query values, for scrubbing.
function collectEveryString(value: unknown, values: string[]): void {
  if (value === null || typeof value !== 'object') return
  for (const [key, item] of Object.entries(value)) {
    if (typeof item !== 'string') {
      collectEveryString(item, values)
      continue
    }
    if (item === '' || item === MASK) continue
    if (!Array.isArray(value) && isSecretKey(key)) values.push(item)
    else if (maskUrlCredentials(item) !== item) values.push(...readUrlSecrets(item))
  }
}

function readUrlSecrets(text: string): string[] {
  const url = new URL(text)
  const found = [url.password || url.username]
  for (const [key, item] of url.searchParams) if (isSecretQueryKey(key)) found.push(item)
  return found.flatMap((item) => [item, safeDecode(item)]).filter((item) => item.length >= 4)
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text)
  } catch {
    return text
  }
}
