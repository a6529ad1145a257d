/**
 * Reaches the configured provider the cheapest way it allows (its model list) to tell "unreachable",
 * "key rejected" and "fine" apart. Any HTTP answer other than 401/403 means the server is there.
 */
import { resolveProviderSettings } from '../config/provider-registry.js'
import type { CharpipeConfig } from '../config/schema.js'
import { scrubSecrets } from '../shared/logger.js'

export interface DoctorCheck {
  name: string
  ok: boolean
  message: string
}

export interface CheckProviderConnectionOptions {
  llm: CharpipeConfig['llm']
  openclaw: CharpipeConfig['openclaw']
  /** @default 5000 */
  timeoutMs?: number
  fetch?: typeof fetch
}

export async function checkProviderConnection(options: CheckProviderConnectionOptions): Promise<DoctorCheck> {
  const settings = resolveProviderSettings(options.llm)
  const name = 'provider'
  if (settings.apiType === 'mock') return { name, ok: true, message: 'the mock provider needs no connection' }
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
  const fetchImplementation = options.fetch ?? fetch
  try {
    const response = await fetchImplementation(url, {
      headers,
      signal: AbortSignal.timeout(options.timeoutMs ?? 5000),
    })
    await response.body?.cancel()
    if (response.status === 401 || response.status === 403) {
      return {
        name,
        ok: false,
        message: `${settings.name} at ${url} rejected the credentials (HTTP ${response.status})`,
      }
    }
    return { name, ok: true, message: `${settings.name} at ${url} answered (HTTP ${response.status})` }
  } catch (error) {
    const reason =
      (error as Error).name === 'TimeoutError' ? 'no answer in time' : scrubSecrets((error as Error).message)
    return { name, ok: false, message: `cannot reach ${settings.name} at ${url}: ${reason}` }
  }
}
