/**
 * The page's only way to the server: JSON over fetch with the stored token as a bearer header. A 401
 * answer tells the listeners so the page can ask for a token; every other failure becomes an
 * `ApiError` carrying the server's code, message and (for config saves) the field issues.
 */
import { type ConfigIssue, normalizeIssues } from './config-issues.js'
import { translate } from './i18n.js'
import { readToken } from './token-store.js'

export class ApiError extends Error {
  readonly status: number
  readonly code: string
  readonly issues: ConfigIssue[]
  constructor(options: { status: number; code: string; message: string; issues?: ConfigIssue[] }) {
    super(options.message)
    this.name = 'ApiError'
    this.status = options.status
    this.code = options.code
    this.issues = options.issues ?? []
  }
}

type UnauthorizedListener = () => void
const unauthorizedListeners = new Set<UnauthorizedListener>()

/** Calls `listener` whenever the server answers 401; returns the unsubscribe function. */
export function onUnauthorized(listener: UnauthorizedListener): () => void {
  unauthorizedListeners.add(listener)
  return () => unauthorizedListeners.delete(listener)
}

export function buildAuthHeaders(): Record<string, string> {
  const token = readToken()
  return token ? { authorization: `Bearer ${token}` } : {}
}

/** Sends a request and parses the JSON answer; throws `ApiError` for any non-2xx status. */
export async function requestJson<T>(method: string, url: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = { ...buildAuthHeaders() }
  if (body !== undefined) headers['content-type'] = 'application/json'
  let response: Response
  try {
    response = await fetch(url, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    })
  } catch (error) {
    throw new ApiError({
      status: 0,
      code: 'network',
      message: translate('network.unreachable', {
        message: error instanceof Error ? error.message : String(error),
      }),
    })
  }
  const text = await response.text()
  let parsed: unknown
  try {
    parsed = text ? JSON.parse(text) : undefined
  } catch {
    parsed = undefined
  }
  if (response.status === 401) for (const listener of unauthorizedListeners) listener()
  if (!response.ok) throw createApiError(response.status, parsed, text)
  return parsed as T
}

function createApiError(status: number, parsed: unknown, text: string): ApiError {
  const error = (parsed as { error?: unknown } | undefined)?.error
  if (error && typeof error === 'object') {
    const record = error as { code?: unknown; message?: unknown; issues?: unknown }
    const issues = normalizeIssues(record.issues)
    const message =
      typeof record.message === 'string'
        ? record.message
        : issues.length > 0
          ? issues.map((issue) => `${issue.path}: ${issue.message}`).join('; ')
          : `HTTP ${status}`
    return new ApiError({ status, code: String(record.code ?? 'http_error'), message, issues })
  }
  const message = typeof error === 'string' ? error : text.slice(0, 300) || `HTTP ${status}`
  return new ApiError({ status, code: status === 401 ? 'unauthorized' : 'http_error', message })
}
