import { describe, expect, it } from 'vitest'
import { defaultConfig, parseConfig } from '../characters/load-config.js'
import { createLogger } from '../shared/logger.js'
import { collectSecrets, maskSecrets, restoreMaskedSecrets } from './mask-secrets.js'

const withSecrets = () =>
  parseConfig(
    {
      server: { token: 'server-token-1234' },
      llm: {
        provider: 'deepseek',
        api_key: 'sk-deepseek-abcdef',
        fallbacks: [{ provider: 'anthropic', api_key: 'sk-ant-fallback-99' }, { provider: 'ollama' }],
      },
      openclaw: { token: 'claw-token-5678' },
      storage: { redis_url: 'redis://:hunter2@127.0.0.1:6379' },
    },
    { logger: createLogger({ level: 'silent' }) },
  ).config

describe('maskSecrets', () => {
  it('replaces every non-empty secret with *** and leaves the rest', () => {
    const masked = maskSecrets(withSecrets())
    expect(masked.server.token).toBe('***')
    expect(masked.llm.api_key).toBe('***')
    expect(masked.llm.fallbacks[0]?.api_key).toBe('***')
    expect(masked.llm.fallbacks[1]?.api_key).toBe('')
    expect(masked.openclaw.token).toBe('***')
    expect(masked.storage.redis_url).toBe('***')
    expect(masked.storage.postgres_url).toBe('')
    expect(masked.llm.provider).toBe('deepseek')
    const text = JSON.stringify(masked)
    for (const secret of collectSecrets(withSecrets())) expect(text).not.toContain(secret)
  })

  it('does not change its input', () => {
    const config = withSecrets()
    maskSecrets(config)
    expect(config.llm.api_key).toBe('sk-deepseek-abcdef')
  })
})

describe('restoreMaskedSecrets', () => {
  it('a *** sent back keeps the stored secret; a new value replaces it', () => {
    const stored = withSecrets()
    const incoming = maskSecrets(stored)
    incoming.openclaw.token = 'new-claw-token'
    const restored = restoreMaskedSecrets(incoming, stored)
    expect(restored.llm.api_key).toBe('sk-deepseek-abcdef')
    expect(restored.llm.fallbacks[0]?.api_key).toBe('sk-ant-fallback-99')
    expect(restored.server.token).toBe('server-token-1234')
    expect(restored.openclaw.token).toBe('new-claw-token')
  })

  it('a *** with nothing stored becomes empty rather than a literal ***', () => {
    const restored = restoreMaskedSecrets({ llm: { api_key: '***' } }, defaultConfig())
    expect(restored.llm.api_key).toBe('')
  })
})

describe('MCP server env and headers', () => {
  const raw = {
    tools: {
      mcp_servers: {
        fs: { command: 'node', args: [], env: { API_TOKEN: 'env-secret-1' } },
        web: { url: 'https://mcp.example.test/mcp', headers: { Authorization: 'Bearer header-secret-2' } },
      },
    },
  }

  it('masks every value and restores them by name', () => {
    const masked = maskSecrets(raw)
    expect(JSON.stringify(masked)).not.toContain('secret')
    expect(masked.tools.mcp_servers.fs.env.API_TOKEN).toBe('***')
    const restored = restoreMaskedSecrets(masked, raw)
    expect(restored).toEqual(raw)
    const config = parseConfig(raw).config
    expect(collectSecrets(config)).toEqual(expect.arrayContaining(['env-secret-1', 'Bearer header-secret-2']))
  })

  it('restores a masked entry named after an Object.prototype member that the file lacks as empty', () => {
    // The names are the request's own header and env names: the stored server has no `toString`.
    const masked = structuredClone(raw) as unknown as {
      tools: {
        mcp_servers: Record<string, { env?: Record<string, string>; headers?: Record<string, string> }>
      }
    }
    masked.tools.mcp_servers.web!.headers = { Authorization: '***', toString: '***' }
    masked.tools.mcp_servers.fs!.env = { API_TOKEN: '***', valueOf: '***' }
    const restored = restoreMaskedSecrets(masked, raw)
    expect(restored.tools.mcp_servers.web!.headers).toEqual({
      Authorization: 'Bearer header-secret-2',
      toString: '',
    })
    expect(restored.tools.mcp_servers.fs!.env).toEqual({ API_TOKEN: 'env-secret-1', valueOf: '' })
  })
})

describe('masking beyond the schema-marked fields', () => {
  const config = () =>
    ({
      llm: { base_url: 'https://alice:pa55word-xyz@models.example/v1?api_key=query-secret-1&region=eu' },
      memory: { embeddings: { base_url: 'https://token-as-user-0001@embed.example/v1' } },
      pipeline: { processors: { 'web-search': { enabled: true, api_key: 'processor-secret-42', limit: 3 } } },
      character: { persona: 'She says https is nice; sk-like words stay.' },
    }) as Record<string, unknown>

  it('hides URL passwords, lone URL users, secret query values and processor secrets', () => {
    const masked = JSON.stringify(maskSecrets(config()))
    for (const secret of ['pa55word-xyz', 'query-secret-1', 'token-as-user-0001', 'processor-secret-42'])
      expect(masked).not.toContain(secret)
    expect(masked).toContain('https://alice:***@models.example/v1?api_key=***&region=eu')
    expect(masked).toContain('She says https is nice; sk-like words stay.')
    expect(masked).toContain('"limit":3')
  })

  it('a masked form sent back restores every hidden value', () => {
    const stored = config()
    expect(restoreMaskedSecrets(maskSecrets(stored), stored)).toEqual(stored)
  })

  it('a changed URL keeps what the client wrote', () => {
    const stored = config()
    const incoming = maskSecrets(stored) as { llm: { base_url: string } }
    incoming.llm.base_url = 'https://alice:new-password@models.example/v1'
    const restored = restoreMaskedSecrets(incoming, stored) as { llm: { base_url: string } }
    expect(restored.llm.base_url).toBe('https://alice:new-password@models.example/v1')
  })
})
