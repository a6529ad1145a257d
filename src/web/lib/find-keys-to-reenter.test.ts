import { describe, expect, it } from 'vitest'
import { findKeysToReenter } from './find-keys-to-reenter.js'

const providers = [
  { name: 'deepseek', defaultBaseUrl: 'https://api.deepseek.com' },
  { name: 'openai', defaultBaseUrl: 'https://api.openai.com/v1' },
]
const saved = {
  llm: {
    provider: 'deepseek',
    base_url: '',
    api_key: '***',
    fallbacks: [{ provider: 'openai', base_url: '', api_key: '***' }],
  },
  openclaw: { url: 'http://localhost:18789', token: '***' },
}
const withLlm = (llm: Record<string, unknown>) => ({ ...saved, llm: { ...saved.llm, ...llm } })
const paths = (draft: typeof saved) =>
  findKeysToReenter({ saved, draft, providers }).map((issue) => issue.path)

describe('findKeysToReenter', () => {
  it('asks for the key when the address moves to another host and the key is still ***', () => {
    expect(paths(withLlm({ base_url: 'https://evil.example/v1' }))).toEqual(['llm.api_key'])
    expect(paths(withLlm({ provider: 'openai' }))).toEqual(['llm.api_key'])
    expect(
      paths(withLlm({ fallbacks: [{ provider: 'openai', base_url: 'http://x.example', api_key: '***' }] })),
    ).toEqual(['llm.fallbacks.0.api_key'])
    expect(paths({ ...saved, openclaw: { url: 'http://gateway.lan:18789', token: '***' } })).toEqual([
      'openclaw.token',
    ])
  })

  it('is quiet when the host stays or a key was typed', () => {
    expect(paths(saved)).toEqual([])
    expect(paths(withLlm({ base_url: 'https://api.deepseek.com/v1' }))).toEqual([])
    expect(paths(withLlm({ base_url: 'https://evil.example', api_key: 'sk-typed' }))).toEqual([])
    expect(paths(withLlm({ model: 'deepseek-reasoner' }))).toEqual([])
  })
})
