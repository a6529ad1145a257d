/**
 * Reaches the configured provider the cheapest way it allows (its model list) to tell "unreachable",
 * "key refused" and "fine" apart. Any HTTP answer other than 401/403 means the server is there. The
 * answer's body is never read: what the doctor says of an address is whether it answered and with
 * which status, so pointing it at an internal page shows no more than that the page exists.
 */
import { resolveProviderSettings } from '../config/provider-registry.js'
import type { CharpipeConfig } from '../config/schema.js'

/**
 * What a check found, for the page to word: `key_refused` is "reached, but the key was refused".
 * `invalid_config` and `skipped` are for the checks before and after the connection.
 */
export type DoctorCheckCode =
  | 'ok'
  | 'unreachable'
  | 'key_refused'
  | 'not_found'
  | 'timeout'
  | 'http_error'
  | 'invalid_config'
  | 'skipped'

export interface DoctorCheck {
  name: string
  ok: boolean
  code: DoctorCheckCode
  message: string
}

export interface CheckProviderConnectionOptions {
  llm: CharpipeConfig['llm']
  openclaw: CharpipeConfig['openclaw']
  /** @default 5000 */
  timeoutMs?: number
  fetch?: typeof fetch
}

/** The code for an HTTP status the provider answered with. */
export function convertStatusToCheckCode(status: number): DoctorCheckCode {
  if (status === 401 || status === 403) return 'key_refused'
  if (status === 404) return 'not_found'
  if (status >= 200 && status < 300) return 'ok'
  return 'http_error'
}

export async function checkProviderConnection(options: CheckProviderConnectionOptions): Promise<DoctorCheck> {
  const settings = resolveProviderSettings(options.llm)
  const name = 'provider'
  if (settings.apiType === 'mock')
    return { name, ok: true, code: 'ok', message: 'the mock provider needs no connection' }
  const headers: Record<string, string> = {}
  let url: string
  if (settings.apiType === 'anthropic') {
    url = `${settings.baseUrl.replace(/\/+$/, '')}/v1/models`
    headers['anthropic-version'] = '2023-06-01'
    if (settings.apiKey) headers['x-api-key'] = settings.apiKey
  } else if (settings.apiType === 'openclaw') {
    url = `${options.openclaw.url.replace(/\/+$/, '')}/v1/models`
    if (options.openclaw.token) headers.authorization = `Bearer ${options.openclaw.token}`
  } else {
    url = `${settings.baseUrl.replace(/\/+$/, '')}/models`
    if (settings.apiKey) headers.authorization = `Bearer ${settings.apiKey}`
  }
  const shownUrl = describeUrl(url)
  const fetchImplementation = options.fetch ?? fetch
  try {
    const response = await fetchImplementation(url, {
      headers,
      redirect: 'manual',
      signal: AbortSignal.timeout(options.timeoutMs ?? 5000),
    })
    await response.body?.cancel()
    const code = convertStatusToCheckCode(response.status)
    if (code === 'key_refused') {
      return {
        name,
        ok: false,
        code,
        message: `${settings.name} at ${shownUrl} was reached but refused the key (HTTP ${response.status})`,
      }
    }
    // A model list the server does not have (404) or another status still proves the server is there.
    return {
      name,
      ok: true,
      code,
      message: `${settings.name} at ${shownUrl} answered (HTTP ${response.status})`,
    }
  } catch (error) {
    const timedOut = (error as Error).name === 'TimeoutError'
    return {
      name,
      ok: false,
      code: timedOut ? 'timeout' : 'unreachable',
      // The system's own wording (ECONNREFUSED vs a TLS error) is not passed on: it would map ports.
      message: timedOut
        ? `${settings.name} at ${shownUrl} gave no answer in time`
        : `cannot reach ${settings.name} at ${shownUrl}`,
    }
  }
}

/** The address without credentials, query or fragment. */
function describeUrl(url: string): string {
  try {
    const parsed = new URL(url)
    return `${parsed.protocol}//${parsed.host}${parsed.pathname}`
  } catch {
    return 'the configured address'
  }
}
