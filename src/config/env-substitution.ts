/**
 * `${ENV_VAR}` (and `${ENV_VAR:-fallback}`) in any string of the config file is replaced from the
 * environment. An unset variable without a fallback becomes an empty string and is reported, so a
 * config that names keys for several providers still loads while only one of them is set.
 * `$${ENV_VAR}` is the literal text `${ENV_VAR}`: that is how a value given through the admin API is
 * written to the file, since only the file's author may read the environment.
 */
const reference = /\$(\$)?\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g

export interface SubstitutionResult<T> {
  value: T
  /** `path: variable` for each variable that was not set. */
  missing: { path: string; variable: string }[]
}

export function substituteEnvVariables<T>(
  input: T,
  environment: Record<string, string | undefined> = process.env,
): SubstitutionResult<T> {
  const missing: { path: string; variable: string }[] = []

  const visit = (value: unknown, path: string): unknown => {
    if (typeof value === 'string') {
      return value.replace(reference, (match, escaped, name: string, fallback: string | undefined) => {
        if (escaped) return match.slice(1)
        // Text only: `${toString}` or `${__proto__}` is an unset variable, not a member every
        // object (process.env too) inherits.
        const found = environment[name]
        if (typeof found === 'string') return found
        if (fallback !== undefined) return fallback
        missing.push({ path, variable: name })
        return ''
      })
    }
    if (Array.isArray(value))
      return value.map((item, index) => visit(item, path ? `${path}.${index}` : String(index)))
    if (value && typeof value === 'object') {
      const result: Record<string, unknown> = {}
      for (const [key, item] of Object.entries(value))
        result[key] = visit(item, path ? `${path}.${key}` : key)
      return result
    }
    return value
  }

  return { value: visit(input, '') as T, missing }
}

/**
 * The text that `substituteEnvVariables` turns back into `value` unchanged: every reference-shaped
 * `${…}` (escaped or not) gets one more `$`. Strings anywhere in `value` are escaped.
 */
export function escapeEnvReferences<T>(value: T): T {
  if (typeof value === 'string') return value.replace(reference, (match) => `$${match}`) as T
  if (Array.isArray(value)) return value.map((item) => escapeEnvReferences(item)) as T
  if (value !== null && typeof value === 'object') {
    const result: Record<string, unknown> = {}
    for (const [key, item] of Object.entries(value)) result[key] = escapeEnvReferences(item)
    return result as T
  }
  return value
}
