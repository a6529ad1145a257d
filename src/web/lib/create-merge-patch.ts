/**
 * The body for saving a section: the edited value, with `null` for every key the edit removed from a
 * mapping (JSON Merge Patch), so deleting an emotion alias or a processor option really removes it.
 */
function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
}

export function createMergePatch(edited: unknown, original: unknown): unknown {
  if (!isPlainObject(edited) || !isPlainObject(original)) return edited
  const patch: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(edited)) patch[key] = createMergePatch(value, original[key])
  // Own keys only: a removed alias named `toString` is still inherited from Object.prototype.
  for (const key of Object.keys(original)) if (!Object.hasOwn(edited, key)) patch[key] = null
  return patch
}
