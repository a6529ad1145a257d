/**
 * Keys that, merged into a plain object, reach `Object.prototype` (or a constructor) instead of the
 * object: `{"__proto__": {"enabled": false}}` walked by a naive merge changes every object of the
 * process. User JSON (API bodies, WebSocket frames, the config file) is refused when it carries one,
 * before anything reads it further.
 */
const forbiddenKeys: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype'])

export function isForbiddenKey(key: string): boolean {
  return forbiddenKeys.has(key)
}

/** The dotted path of the first forbidden key in `value` (e.g. `llm.__proto__`), or undefined. */
export function findForbiddenKey(value: unknown): string | undefined {
  const pending: { value: unknown; path: string }[] = [{ value, path: '' }]
  while (pending.length > 0) {
    const { value: current, path } = pending.pop()!
    if (current === null || typeof current !== 'object') continue
    if (Array.isArray(current)) {
      for (const [index, item] of current.entries())
        pending.push({ value: item, path: join(path, String(index)) })
      continue
    }
    // Own keys only, `__proto__` included: JSON.parse and YAML make it an ordinary own property.
    for (const key of Object.keys(current)) {
      if (isForbiddenKey(key)) return join(path, key)
      pending.push({ value: (current as Record<string, unknown>)[key], path: join(path, key) })
    }
  }
  return undefined
}

export const forbiddenKeyMessage = `this key is not allowed (${[...forbiddenKeys].join(', ')} are refused as keys)`

/** The message shown for a forbidden key at `path`. */
export function describeForbiddenKey(path: string): string {
  return `${path}: ${forbiddenKeyMessage}`
}

function join(path: string, key: string): string {
  return path ? `${path}.${key}` : key
}
