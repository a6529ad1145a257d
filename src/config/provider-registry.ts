/**
 * The builtin providers (SPEC R1.1). A provider's `apiType` decides which client speaks to it; a name
 * that is not here is taken to be OpenAI-compatible and must come with a `base_url`.
 */
export type ApiType = 'openai' | 'anthropic' | 'openclaw' | 'mock'

export interface ProviderInfo {
  name: string
  apiType: ApiType
  /** Empty when the user must give one (`custom`). */
  defaultBaseUrl: string
  /** Empty when the user must give one. */
  defaultModel: string
  /** Context window of the default model, for the token limiter. */
  contextWindow: number
  /** The provider needs an API key to answer. */
  requiresApiKey: boolean
  /** Shown in the web page's provider picker. */
  label: string
  /** The API takes images by URL; false: only as data URIs (the server then fetches them). @default true */
  acceptsImageUrls?: boolean
}

const providers: ProviderInfo[] = [
  {
    name: 'deepseek',
    apiType: 'openai',
    defaultBaseUrl: 'https://api.deepseek.com',
    defaultModel: 'deepseek-chat',
    contextWindow: 128_000,
    requiresApiKey: true,
    label: 'DeepSeek',
  },
  {
    name: 'moonshot',
    apiType: 'openai',
    defaultBaseUrl: 'https://api.moonshot.cn/v1',
    defaultModel: 'moonshot-v1-8k',
    contextWindow: 8_192,
    requiresApiKey: true,
    label: 'Moonshot (Kimi)',
  },
  {
    name: 'doubao',
    apiType: 'openai',
    defaultBaseUrl: 'https://ark.cn-beijing.volces.com/api/v3',
    defaultModel: 'doubao-seed-1-6-250615',
    contextWindow: 128_000,
    requiresApiKey: true,
    label: '豆包 (Volcengine Ark)',
  },
  {
    name: 'ollama',
    apiType: 'openai',
    defaultBaseUrl: 'http://localhost:11434/v1',
    defaultModel: 'qwen2.5:7b',
    contextWindow: 32_768,
    requiresApiKey: false,
    label: 'Ollama (local)',
    // Its OpenAI-compatible API reads base64 images only.
    acceptsImageUrls: false,
  },
  {
    name: 'openai',
    apiType: 'openai',
    defaultBaseUrl: 'https://api.openai.com/v1',
    defaultModel: 'gpt-4o-mini',
    contextWindow: 128_000,
    requiresApiKey: true,
    label: 'OpenAI',
  },
  {
    name: 'anthropic',
    apiType: 'anthropic',
    defaultBaseUrl: 'https://api.anthropic.com',
    defaultModel: 'claude-sonnet-5-5',
    contextWindow: 200_000,
    requiresApiKey: true,
    label: 'Anthropic Claude',
  },
  {
    name: 'openclaw',
    apiType: 'openclaw',
    defaultBaseUrl: 'http://localhost:18789',
    defaultModel: 'openclaw',
    contextWindow: 128_000,
    requiresApiKey: false,
    label: 'OpenClaw gateway',
  },
  {
    name: 'custom',
    apiType: 'openai',
    defaultBaseUrl: '',
    defaultModel: '',
    contextWindow: 32_768,
    requiresApiKey: false,
    label: 'Custom OpenAI-compatible',
  },
  {
    name: 'mock',
    apiType: 'mock',
    defaultBaseUrl: '',
    defaultModel: 'mock-character',
    contextWindow: 32_768,
    requiresApiKey: false,
    label: 'Mock (no key, for trying things out)',
  },
]

const byName = new Map(providers.map((provider) => [provider.name, provider]))

export const builtinProviders: readonly ProviderInfo[] = providers

/** The registry entry, or an OpenAI-compatible entry for an unknown name (seed 000, modified). */
export function lookupProvider(name: string): ProviderInfo & { builtin: boolean } {
  const known = byName.get(name)
  if (known) return { ...known, builtin: true }
  return {
    name,
    apiType: 'openai',
    defaultBaseUrl: '',
    defaultModel: '',
    contextWindow: 32_768,
    requiresApiKey: false,
    label: name,
    builtin: false,
  }
}

export interface ResolvedProviderSettings {
  name: string
  apiType: ApiType
  baseUrl: string
  model: string
  apiKey: string
  contextWindow: number
}

/** Fills a configured provider's empty fields from the registry. */
export function resolveProviderSettings(settings: {
  provider: string
  model?: string
  base_url?: string
  api_key?: string
  context_window?: number
}): ResolvedProviderSettings {
  const info = lookupProvider(settings.provider)
  return {
    name: info.name,
    apiType: info.apiType,
    baseUrl: settings.base_url || info.defaultBaseUrl,
    model: settings.model || info.defaultModel,
    apiKey: settings.api_key ?? '',
    contextWindow: settings.context_window || info.contextWindow,
  }
}
