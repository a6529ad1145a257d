/**
 * Turns a PUT /api/config body (full or partial) into the leaf changes to make to the stored file.
 * A value equal to what the file says, or to what the running config already uses, is no change:
 * so a full form sent back by the web page does not write every default into the file, and a field
 * that reads `${ENV}` in the file (shown expanded) stays a reference.
 */
import { isDeepStrictEqual } from 'node:util'

export interface ConfigChange {
  path: string[]
  value: unknown
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
}

export function readAtPath(value: unknown, path: readonly string[]): unknown {
  let current = value
  for (const key of path) {
    if (!isPlainObject(current)) return undefined
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

/** A deep copy of `target` with each change set (creating mappings along the way). */
export function applyConfigChanges(
  target: Record<string, unknown>,
  changes: ConfigChange[],
): Record<string, unknown> {
  const result = structuredClone(target)
  for (const change of changes) {
    let holder = result
    for (const key of change.path.slice(0, -1)) {
      if (!isPlainObject(holder[key])) holder[key] = {}
      holder = holder[key] as Record<string, unknown>
    }
    holder[change.path.at(-1)!] = structuredClone(change.value)
  }
  return result
}
