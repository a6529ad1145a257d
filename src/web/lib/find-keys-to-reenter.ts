/**
 * The page's early warning for the server's rule that a stored key stays with its host: when the
 * draft points a provider at another host while its key still shows `***`, the key field says to
 * type the key again (saving as it is would be refused with the same message from the server).
 */
import type { ConfigIssue } from './config-issues.js'
import { translate } from './i18n.js'

export interface ProviderDefaults {
  name: string
  defaultBaseUrl?: string
}

export interface FindKeysToReenterOptions {
  /** The saved `llm` and `openclaw` sections (masked). */
  saved: { llm?: unknown; openclaw?: unknown }
  draft: { llm?: unknown; openclaw?: unknown }
  providers: readonly ProviderDefaults[]
}

type Mapping = Record<string, unknown>

const asMapping = (value: unknown): Mapping =>
  value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Mapping) : {}

/** The host of an address (lower case, with its port), or the text itself when it is not a URL. */
function readUrlHost(url: string): string {
  try {
    return new URL(url).host.toLowerCase()
  } catch {
    return url
  }
}

export function findKeysToReenter(options: FindKeysToReenterOptions): ConfigIssue[] {
  const defaultUrl = (provider: unknown) =>
    options.providers.find((entry) => entry.name === provider)?.defaultBaseUrl ?? ''
  const providerHost = (holder: Mapping) =>
    readUrlHost(String(holder.base_url || '') || defaultUrl(holder.provider))
  const issues: ConfigIssue[] = []
  const check = (
    path: string,
    before: Mapping,
    after: Mapping,
    host: (holder: Mapping) => string,
    key: string,
  ) => {
    if (after[key] === '***' && before[key] === '***' && host(before) !== host(after))
      issues.push({ path: `${path}.${key}`, message: translate('key.reenter') })
  }
  const savedLlm = asMapping(options.saved.llm)
  const draftLlm = asMapping(options.draft.llm)
  check('llm', savedLlm, draftLlm, providerHost, 'api_key')
  const savedFallbacks = Array.isArray(savedLlm.fallbacks) ? savedLlm.fallbacks : []
  const draftFallbacks = Array.isArray(draftLlm.fallbacks) ? draftLlm.fallbacks : []
  draftFallbacks.forEach((fallback, index) => {
    check(
      `llm.fallbacks.${index}`,
      asMapping(savedFallbacks[index]),
      asMapping(fallback),
      providerHost,
      'api_key',
    )
  })
  const gatewayHost = (holder: Mapping) => readUrlHost(String(holder.url ?? ''))
  check(
    'openclaw',
    asMapping(options.saved.openclaw),
    asMapping(options.draft.openclaw),
    gatewayHost,
    'token',
  )
  return issues
}
