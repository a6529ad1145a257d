/**
 * Secret handling shared by the logger, errors and the admin API: the keys whose values are secrets,
 * and a scrubber for free text (error bodies, URLs) that may echo a key back.
 */
export const MASK = '***'

/** Object keys whose values are secrets wherever they appear. */
export const secretKeys: ReadonlySet<string> = new Set([
  'api_key',
  'apiKey',
  'token',
  'authorization',
  'Authorization',
  'x-api-key',
  'password',
  'secret',
])

export function isSecretKey(key: string): boolean {
  return secretKeys.has(key) || /(?:api[_-]?key|token|secret|password)$/i.test(key)
}

// Key shapes providers hand out, and bearer headers, so text echoed back by an upstream cannot leak one.
const secretPatterns: RegExp[] = [
  /\bsk-ant-[A-Za-z0-9_-]{8,}/g,
  /\bsk-[A-Za-z0-9_-]{8,}/g,
  /\b(Bearer\s+)[A-Za-z0-9._~+/=-]{8,}/gi,
  /([?&](?:api[_-]?key|key|token)=)[^&\s"']+/gi,
]

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
