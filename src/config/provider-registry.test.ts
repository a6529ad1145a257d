import { describe, expect, it } from 'vitest'
import { builtinProviders, lookupProvider, resolveProviderSettings } from './provider-registry.js'

describe('provider registry (SPEC R1.1)', () => {
  it('has every builtin provider with its api_type', () => {
    const types = Object.fromEntries(builtinProviders.map((provider) => [provider.name, provider.apiType]))
    expect(types).toEqual({
      deepseek: 'openai',
      moonshot: 'openai',
      doubao: 'openai',
      ollama: 'openai',
      openai: 'openai',
      anthropic: 'anthropic',
      openclaw: 'openclaw',
      custom: 'openai',
      mock: 'mock',
    })
  })

  it('Scenario: 通过注册表查询 API 类型 — the SDK is chosen by api_type', () => {
    expect(lookupProvider('anthropic').apiType).toBe('anthropic')
    expect(lookupProvider('deepseek').apiType).toBe('openai')
  })

  it('Scenario: 注册表中无此 Provider — an unknown name falls back to OpenAI-compatible', () => {
    expect(lookupProvider('vllm-box')).toMatchObject({
      apiType: 'openai',
      builtin: false,
      defaultBaseUrl: '',
    })
  })

  it('fills empty fields from the registry and keeps given ones', () => {
    expect(resolveProviderSettings({ provider: 'deepseek', model: '', base_url: '' })).toMatchObject({
      baseUrl: 'https://api.deepseek.com',
      model: 'deepseek-chat',
    })
    expect(
      resolveProviderSettings({ provider: 'ollama', model: 'llama3.2', base_url: 'http://box:11434/v1' }),
    ).toMatchObject({
      baseUrl: 'http://box:11434/v1',
      model: 'llama3.2',
    })
  })
})
