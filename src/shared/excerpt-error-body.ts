import { scrubSecrets } from './logger.js'

const maxErrorMessage = 200

/**
 * The provider's own error message from an error body, short and secret-free, or '' when the body
 * is not a JSON error (`{"error":{"message"}}`, `{"error":"…"}`, `{"message"}`, `{"detail"}`). Raw
 * bodies are never passed on: the address may be any server (an internal page, a proxy's HTML), and
 * what it answered must not reach chat clients or the API.
 */
export function excerptErrorBody(body: unknown): string {
  const message = findErrorMessage(typeof body === 'string' ? parseJson(body) : body, 0)
  if (!message) return ''
  const compact = scrubSecrets(message.replace(/\s+/g, ' ').trim())
  return compact.length > maxErrorMessage ? `${compact.slice(0, maxErrorMessage)}…` : compact
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

function findErrorMessage(value: unknown, depth: number): string | undefined {
  if (depth > 2 || value === null || typeof value !== 'object' || Array.isArray(value)) return undefined
  const record = value as Record<string, unknown>
  for (const key of ['message', 'detail']) if (typeof record[key] === 'string') return record[key] as string
  if (typeof record.error === 'string') return record.error
  return findErrorMessage(record.error, depth + 1)
}
