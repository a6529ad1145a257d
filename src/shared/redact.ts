/**
 * Secret handling shared by the logger, errors and the admin API: the keys whose values are secrets,
 * and a scrubber for free text (error bodies, URLs) that may echo a key back.
 */
export const MASK = '***'

/** Object keys whose values are secrets wherever they appear. */
const secretKeys: ReadonlySet<string> = new Set([
  'api_key',
  'apiKey',
  'token',
  'authorization',
  'Authorization',
  'x-api-key',
  'password',
  'secret',
  // A logged-in session (a Bilibili connector's cookie): as good as a password.
  'cookie',
  'Cookie',
])

export function isSecretKey(key: string): boolean {
  return secretKeys.has(key) || /(?:api[_-]?key|token|secret|password)$/i.test(key)
}

// Key shapes providers hand out, and bearer headers, so text echoed back by an upstream cannot leak one.
const secretPatterns: RegExp[] = [
  /\bsk-ant-[A-Za-z0-9_-]{8,}/g,
  /\bsk-[A-Za-z0-9_-]{8,}/g,
  /\b(Bearer\s+)[A-Za-z0-9._~+/=-]{8,}/gi,
  /([?&](?:[a-z0-9_-]*(?:api[_-]?key|token|secret|password)|key|sig|signature|auth|code)=)[^&\s"'#]+/gi,
  // Credentials in a URL's user part: `https://user:password@host` keeps the user, `https://token@host` nothing.
  /(\b[a-z][a-z0-9+.-]*:\/\/[^/\s:@"']+:)[^@/\s"']+(?=@)/gi,
  /(\b[a-z][a-z0-9+.-]*:\/\/)[^/\s:@"']+(?=@)/gi,
]

/** Query keys whose values are secrets (`?api_key=`, `?token=`, `?key=`, `?sig=`…). */
export function isSecretQueryKey(key: string): boolean {
  return /^(?:[a-z0-9_-]*(?:api[_-]?key|token|secret|password)|key|sig|signature|auth|code)$/i.test(key)
}

/**
 * `value` with the password (or a lone user, often a token) and secret-looking query values of a
 * URL replaced by `***`; any other text is returned unchanged.
 */
export function maskUrlCredentials(value: string): string {
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(value)) return value
  let url: URL
  try {
    url = new URL(value)
  } catch {
    return value
  }
  let changed = false
  if (url.password) {
    url.password = MASK
    changed = true
  } else if (url.username) {
    url.username = MASK
    changed = true
  }
  for (const key of [...url.searchParams.keys()]) {
    if (isSecretQueryKey(key) && url.searchParams.get(key) !== MASK) {
      url.searchParams.set(key, MASK)
      changed = true
    }
  }
  // URL escapes `*`: kept readable, since the page sends the text back and it must compare equal.
  return changed ? url.toString().replaceAll('%2A%2A%2A', MASK) : value
}

/**
 * Replaces anything that looks like a secret in `text`, and every exact occurrence of `knownSecrets`
 * (the configured keys, which may have any shape).
 */
export function redactText(text: string, knownSecrets: Iterable<string> = []): string {
  let result = text
  for (const secret of knownSecrets) {
    if (secret.length >= 4) result = result.split(secret).join(MASK)
  }
  for (const pattern of secretPatterns) {
    result = result.replace(pattern, (match, prefix?: string) =>
      typeof prefix === 'string' && match.startsWith(prefix) ? `${prefix}${MASK}` : MASK,
    )
  }
  return result
}
