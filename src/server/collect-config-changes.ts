/**
 * Turns a PUT /api/config body (full or partial) into the leaf changes to make to the stored file.
 * A value equal to what the file says, or to what the running config already uses, is no change:
 * so a full form sent back by the web page does not write every default into the file, and a field
 * that reads `${ENV}` in the file (shown expanded) stays a reference.
 */
import { isDeepStrictEqual } from 'node:util'
import { isMapField } from '../config/find-schema-field.js'
import { isForbiddenKey } from '../shared/find-forbidden-key.js'

export interface ConfigChange {
  path: string[]
  value: unknown
  /** Remove the field from the file (a `null` in the body, as in JSON Merge Patch): its default applies. */
  remove?: boolean
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
}

function readAtPath(value: unknown, path: readonly string[]): unknown {
  let current = value
  for (const key of path) {
    // Own keys only: a `toString` field the file lacks reads as absent, not as a function.
    if (!isPlainObject(current) || !Object.hasOwn(current, key)) return undefined
    current = current[key]
  }
  return current
}

export interface CollectConfigChangesOptions {
  /** The body, with `***` secrets already restored. */
  incoming: Record<string, unknown>
  /** The file's content before `${ENV}` substitution. */
  stored: Record<string, unknown>
  /** The running config (after substitution and defaults). */
  effective: unknown
}

export function collectConfigChanges(options: CollectConfigChangesOptions): ConfigChange[] {
  const changes: ConfigChange[] = []
  const visit = (value: unknown, path: string[]) => {
    const storedValue = readAtPath(options.stored, path)
    if (value === null && path.length > 0) {
      const removal = collectRemoval(path, storedValue, options)
      if (removal) changes.push(removal)
      return
    }
    // Recurse only where the file already has a mapping to edit; otherwise the whole value is one change.
    if (
      isPlainObject(value) &&
      (isPlainObject(storedValue) || storedValue === undefined) &&
      path.length > 0
    ) {
      const entries = Object.entries(value)
      if (
        entries.length === 0 &&
        storedValue === undefined &&
        readAtPath(options.effective, path) === undefined
      ) {
        changes.push({ path, value })
      }
      for (const [key, item] of entries) visit(item, [...path, key])
      return
    }
    if (path.length === 0 && isPlainObject(value)) {
      for (const [key, item] of Object.entries(value)) visit(item, [key])
      return
    }
    if (storedValue !== undefined && isDeepStrictEqual(storedValue, value)) return
    if (isDeepStrictEqual(readAtPath(options.effective, path), value)) {
      // Same as running; a file value that differs only by `${ENV}` expansion stays as written.
      if (storedValue === undefined || typeof storedValue === 'string') return
    }
    changes.push({ path, value })
  }
  visit(options.incoming, [])
  return changes
}

/**
 * `null` removes a field. A key of a free-keyed map that only the defaults give (an emotion alias the
 * file never listed) is removed by writing the map without it, since the file then replaces the map.
 * A `null` where null is itself the value in use (`memory.embeddings`) changes nothing.
 */
function collectRemoval(
  path: string[],
  storedValue: unknown,
  options: CollectConfigChangesOptions,
): ConfigChange | undefined {
  if (storedValue === null) return undefined
  if (storedValue !== undefined) return { path, value: undefined, remove: true }
  const parentPath = path.slice(0, -1)
  const key = path.at(-1)!
  const effectiveParent = readAtPath(options.effective, parentPath)
  if (
    !isMapField(parentPath) ||
    !isPlainObject(effectiveParent) ||
    readAtPath(effectiveParent, [key]) === undefined
  )
    return undefined
  if (readAtPath(options.stored, parentPath) !== undefined) return undefined
  const { [key]: _removed, ...rest } = effectiveParent
  return { path: parentPath, value: rest }
}

/** A deep copy of `target` with each change set (creating mappings along the way). */
export function applyConfigChanges(
  target: Record<string, unknown>,
  changes: ConfigChange[],
): Record<string, unknown> {
  const result = structuredClone(target)
  for (const change of changes) {
    // Refused earlier with a field issue; never walked here, where it would reach Object.prototype.
    if (change.path.some(isForbiddenKey)) throw new TypeError(`forbidden key in ${change.path.join('.')}`)
    let holder = result
    for (const key of change.path.slice(0, -1)) {
      if (!isPlainObject(holder[key])) holder[key] = {}
      holder = holder[key] as Record<string, unknown>
    }
    if (change.remove) delete holder[change.path.at(-1)!]
    else holder[change.path.at(-1)!] = structuredClone(change.value)
  }
  return result
}
