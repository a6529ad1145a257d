import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { parseConfig } from '../characters/load-config.js'
import { type MockModelServer, startMockModelServer } from '../testing/start-mock-model-server.js'
import { createProviderFromConfig } from './create-provider-from-config.js'
import { collectEvents } from './test-helpers.js'

let server: MockModelServer
beforeAll(async () => {
  server = await startMockModelServer()
})
afterAll(() => server.close())

const ask = { messages: [{ role: 'user' as const, content: '今天好累啊' }] }

describe('createProviderFromConfig', () => {
  it('defaults to the builtin mock, which streams a reply in the configured format and says it is a mock', async () => {
    const { config } = parseConfig({
      character: { reply_format: 'json', emotions: ['开心', '难过'], default_emotion: '开心' },
    })
    const provider = createProviderFromConfig(config)
    expect(provider.name).toBe('mock')
    const result = await collectEvents(provider.streamChat(ask))
    expect(result.error).toBeUndefined()
    expect(result.events.filter((event) => event.type === 'text-delta').length).toBeGreaterThan(5)
    const reply = JSON.parse(result.text) as { emotion: string; text: string }
    expect(['开心', '难过']).toContain(reply.emotion)
    expect(reply.text).toContain('今天好累啊')
    expect(reply.text).toContain('mock')
    expect(result.events.at(-1)).toEqual({ type: 'finish', reason: 'stop' })
  })

  it('echoes what the user said without the appended tone note', async () => {
    const { config } = parseConfig({ character: { reply_format: 'plain' } })
    const result = await collectEvents(
      createProviderFromConfig(config).streamChat({
        messages: [{ role: 'user', content: '我考了满分[用户语气：愉快]' }],
      }),
    )
    expect(result.text).toContain('我考了满分')
    expect(result.text).not.toContain('用户语气')
  })

  it('uses the prefix shape for reply_format auto', async () => {
    const { config } = parseConfig({})
    const result = await collectEvents(createProviderFromConfig(config).streamChat(ask))
    expect(result.text).toMatch(/^\{"emotion":"[^"]+"\}.+。/)
  })

  it('resolves a custom OpenAI-compatible provider and falls back after it fails', async () => {
    server.reset()
    server.script([{ status: 401 }, { text: '来自备用。' }])
    const { config } = parseConfig({
      llm: {
        provider: 'my-gateway',
        base_url: `${server.url}/v1`,
        model: 'primary-model',
        api_key: 'sk-primary-000000',
        max_retries: 0,
        fallbacks: [{ provider: 'custom', base_url: `${server.url}/v1`, model: 'backup-model' }],
      },
    })
    const result = await collectEvents(createProviderFromConfig(config).streamChat(ask))
    expect(result.text).toBe('来自备用。')
    expect(server.requests.map((sent) => (sent.body as { model: string }).model)).toEqual([
      'primary-model',
      'backup-model',
    ])
    expect(server.requests[0]!.body).toMatchObject({ temperature: 0.8, max_tokens: 1024 })
  })

  it('takes the gateway settings from the openclaw section', async () => {
    server.reset()
    server.script({ text: '网关回答。' })
    const { config } = parseConfig({
      llm: { provider: 'openclaw' },
      openclaw: { url: server.url, token: 'tok-123456', session_key: 's1', agent_id: 'a1' },
    })
    const result = await collectEvents(createProviderFromConfig(config).streamChat(ask))
    expect(result.text).toBe('网关回答。')
    expect(server.requests[0]!.headers).toMatchObject({
      authorization: 'Bearer tok-123456',
      'x-openclaw-session-key': 's1',
      'x-openclaw-agent-id': 'a1',
    })
  })
})
