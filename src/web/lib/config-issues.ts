/** Field issues of a rejected config save, keyed by dotted path (`llm.temperature`). */
export interface ConfigIssue {
  path: string
  message: string
}

/** Accepts `path` as a dotted string, a JSON-pointer-like string or an array of keys. */
export function normalizeIssuePath(path: unknown): string {
  if (Array.isArray(path)) return path.map(String).join('.')
  if (typeof path !== 'string') return ''
  return path
    .replace(/^\$\.?/, '')
    .replace(/^\//, '')
    .replace(/\//g, '.')
    .replace(/\[(\d+)\]/g, '.$1')
}

export function normalizeIssues(value: unknown): ConfigIssue[] {
  if (!Array.isArray(value)) return []
  return value.map((issue: { path?: unknown; message?: unknown }) => ({
    path: normalizeIssuePath(issue?.path),
    message: typeof issue?.message === 'string' ? issue.message : String(issue?.message ?? ''),
  }))
}

/**
 * The issues for one field: those at its path and those below it (an issue at `llm.fallbacks.0.provider`
 * also belongs to the fallbacks list when no row shows it).
 */
export function findIssuesFor(
  issues: ConfigIssue[],
  path: string,
  options: { below?: boolean } = {},
): string[] {
  return issues
    .filter((issue) => issue.path === path || (options.below === true && issue.path.startsWith(`${path}.`)))
    .map((issue) =>
      issue.path === path ? issue.message : `${issue.path.slice(path.length + 1)}: ${issue.message}`,
    )
}
