import { describe, expect, it } from 'vitest'
import { parseConfig } from '../characters/load-config.js'
import { InvalidConfigError } from '../shared/errors.js'
import { createLogger } from '../shared/logger.js'
import { bindSecretsToHosts } from './bind-secrets-to-hosts.js'
import { restoreMaskedSecrets } from './mask-secrets.js'

const stored = parseConfig(
  {
    llm: {
      provider: 'deepseek',
      api_key: 'sk-deepseek-real',
      fallbacks: [
        { provider: 'custom', base_url: 'https://backup.example/v1', api_key: 'sk-backup-real' },
        { provider: 'ollama' },
      ],
      vision_describer: { provider: 'openai', api_key: 'sk-vision-real' },
    },
    openclaw: { url: 'http://gateway.lan:18789', token: 'claw-real' },
    memory: { embeddings: { api_key: 'sk-embed-real' } },
  },
  { logger: createLogger({ level: 'silent' }) },
).config

const pathsOf = (incoming: unknown) => bindSecretsToHosts(incoming, stored).map((issue) => issue.path)

describe('bindSecretsToHosts', () => {
  it.each([
    [
      'llm.base_url to another host, key ***',
      { llm: { base_url: 'https://evil.example/v1', api_key: '***' } },
    ],
    ['llm.base_url to another host, key left out', { llm: { base_url: 'https://evil.example/v1' } }],
    ['llm.base_url to another port of the same name', { llm: { base_url: 'https://api.deepseek.com:8443' } }],
    ['another provider whose default host differs', { llm: { provider: 'openai' } }],
    [
      'a fallback moved, key ***',
      {
        llm: {
          fallbacks: [
            { provider: 'custom', base_url: 'https://evil.example/v1', api_key: '***' },
            { provider: 'ollama' },
          ],
        },
      },
    ],
    [
      'the describer moved',
      { llm: { vision_describer: { provider: 'openai', base_url: 'http://evil.example' } } },
    ],
    [
      'the embeddings moved',
      { memory: { embeddings: { base_url: 'http://evil.example/v1', api_key: '***' } } },
    ],
    ['the OpenClaw gateway moved', { openclaw: { url: 'http://evil.example:18789' } }],
  ])('refuses %s', (_name, incoming) => {
    const issues = bindSecretsToHosts(incoming, stored)
    expect(issues).toHaveLength(1)
    expect(issues[0]!.message).toMatch(/^re-enter the key: the (base_url|url) host changed/)
  })

  it('names the field of the key that would have moved', () => {
    expect(pathsOf({ llm: { base_url: 'https://evil.example' } })).toEqual(['llm.api_key'])
    expect(
      pathsOf({
        llm: { fallbacks: [{ provider: 'custom', base_url: 'https://x.example', api_key: '***' }] },
      }),
    ).toEqual(['llm.fallbacks.0.api_key'])
    expect(pathsOf({ memory: { embeddings: { base_url: 'http://x.example' } } })).toEqual([
      'memory.embeddings.api_key',
    ])
    expect(pathsOf({ openclaw: { url: 'http://x.example' } })).toEqual(['openclaw.token'])
  })

  it.each([
    ['a new key with the new host', { llm: { base_url: 'https://evil.example/v1', api_key: 'sk-new' } }],
    ['an emptied key with the new host', { llm: { base_url: 'https://evil.example/v1', api_key: '' } }],
    ['another path on the same host', { llm: { base_url: 'https://api.deepseek.com/v1', api_key: '***' } }],
    ['the same host spelt in capitals', { llm: { base_url: 'HTTPS://API.DEEPSEEK.COM' } }],
    [
      'the default address written out',
      { llm: { provider: 'deepseek', base_url: 'https://api.deepseek.com' } },
    ],
    ['other fields only', { llm: { model: 'deepseek-reasoner', api_key: '***', temperature: 0.3 } }],
    [
      'a fallback list item left out key and all (its key goes)',
      { llm: { fallbacks: [{ provider: 'openai' }] } },
    ],
    [
      'a fallback kept where it was',
      { llm: { fallbacks: [{ provider: 'custom', base_url: 'https://backup.example/v1', api_key: '***' }] } },
    ],
    [
      'a new fallback with no stored key at its place',
      { llm: { fallbacks: [{}, { provider: 'custom', base_url: 'http://x.example', api_key: '***' }] } },
    ],
    ['a section removed', { memory: { embeddings: null } }],
    ['nothing about providers', { character: { name: 'x' } }],
  ])('lets through %s', (_name, incoming) => {
    expect(bindSecretsToHosts(incoming, stored)).toEqual([])
  })

  it('compares a stored ${VAR} address by what it stands for', () => {
    const fromFile = { llm: { provider: 'custom', base_url: '${CHARPIPE_TEST_LLM_URL}', api_key: '${KEY}' } }
    process.env.CHARPIPE_TEST_LLM_URL = 'https://llm.example/v1'
    try {
      expect(
        bindSecretsToHosts({ llm: { base_url: 'https://llm.example/v1', api_key: '***' } }, fromFile),
      ).toEqual([])
      expect(bindSecretsToHosts({ llm: { base_url: 'https://evil.example/v1' } }, fromFile)).toHaveLength(1)
    } finally {
      delete process.env.CHARPIPE_TEST_LLM_URL
    }
  })

  it('is applied wherever masked secrets are restored', () => {
    const attempt = () =>
      restoreMaskedSecrets({ llm: { base_url: 'https://evil.example', api_key: '***' } }, stored)
    expect(attempt).toThrow(InvalidConfigError)
    try {
      attempt()
    } catch (error) {
      expect((error as InvalidConfigError).issues[0]!.path).toBe('llm.api_key')
      expect((error as Error).message).not.toContain('sk-deepseek-real')
    }
  })
})

describe('MCP server headers', () => {
  const storedServers = {
    tools: {
      mcp_servers: {
        search: { url: 'https://mcp.example.test/mcp', headers: { Authorization: 'Bearer stored-1' } },
      },
    },
  }

  it('refuses moving a server to another host while its headers stay masked or left out', () => {
    for (const headers of [{ Authorization: '***' }, undefined]) {
      const incoming = {
        tools: {
          mcp_servers: {
            search: { url: 'https://collector.example.org/mcp', ...(headers ? { headers } : {}) },
          },
        },
      }
      expect(bindSecretsToHosts(incoming, storedServers).map((issue) => issue.path)).toEqual([
        'tools.mcp_servers.search.headers.Authorization',
      ])
    }
  })

  it('refuses the move while a header named after an Object.prototype member is left out', () => {
    // The header names are the config's own: `valueOf` is a valid HTTP header name.
    const stored = {
      tools: {
        mcp_servers: { search: { url: 'https://mcp.example.test/mcp', headers: { valueOf: 'stored-3' } } },
      },
    }
    const incoming = { tools: { mcp_servers: { search: { url: 'https://collector.example.org/mcp' } } } }
    expect(bindSecretsToHosts(incoming, stored).map((issue) => issue.path)).toEqual([
      'tools.mcp_servers.search.headers.valueOf',
    ])
  })

  it('allows the move with the header given again, and other changes on the same host', () => {
    const moved = {
      tools: {
        mcp_servers: {
          search: { url: 'https://other.example.org/mcp', headers: { Authorization: 'Bearer new-2' } },
        },
      },
    }
    expect(bindSecretsToHosts(moved, storedServers)).toEqual([])
    const samehost = {
      tools: { mcp_servers: { search: { url: 'https://mcp.example.test/v2', prefix: 's_' } } },
    }
    expect(bindSecretsToHosts(samehost, storedServers)).toEqual([])
  })
})
