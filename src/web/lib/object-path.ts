/** Reads and immutably writes a value at a dotted path (`llm.fallbacks.0.model`). */
export function getAtPath(root: unknown, path: string): unknown {
  if (!path) return root
  let value: unknown = root
  for (const key of path.split('.')) {
    if (value === null || typeof value !== 'object') return undefined
    value = (value as Record<string, unknown>)[key]
  }
  return value
}

export function setAtPath<T>(root: T, path: string, next: unknown): T {
  if (!path) return next as T
  const [head, ...rest] = path.split('.') as [string, ...string[]]
  const container: unknown = root ?? (/^\d+$/.test(head) ? [] : {})
  const child = setAtPath((container as Record<string, unknown>)[head], rest.join('.'), next)
  if (Array.isArray(container)) {
    const copy = [...container]
    copy[Number(head)] = child
    return copy as T
  }
  return { ...(container as object), [head]: child } as T
}

/** Structural equality for JSON values (config drafts against what was loaded). */
export function isJsonEqual(left: unknown, right: unknown): boolean {
  return JSON.stringify(left) === JSON.stringify(right)
}
