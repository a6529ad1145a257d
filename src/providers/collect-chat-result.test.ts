import { describe, expect, it } from 'vitest'
import { UpstreamHttpError } from '../shared/errors.js'
import { createFakeProvider } from '../testing/create-fake-provider.js'
import { chat } from './collect-chat-result.js'
import { createResilientProvider } from './create-resilient-provider.js'

const request = { messages: [{ role: 'user' as const, content: 'hi' }] }

describe('chat: the whole answer at once', () => {
  it('collects text, reasoning, tool calls, usage and the finish reason', async () => {
    const provider = createFakeProvider({
      replies: [
        [
          { type: 'reasoning-delta', text: '想一想' },
          { type: 'text-delta', text: '北京' },
          { type: 'text-delta', text: '晴。' },
          { type: 'tool-call', id: 'c1', name: 'weather', arguments: { city: '北京' }, rawArguments: '' },
          { type: 'usage', usage: { inputTokens: 7, outputTokens: 3 } },
          { type: 'finish', reason: 'tool-calls' },
        ],
      ],
    })
    expect(await chat(provider, request)).toEqual({
      text: '北京晴。',
      reasoning: '想一想',
      toolCalls: [{ id: 'c1', name: 'weather', arguments: { city: '北京' } }],
      usage: { inputTokens: 7, outputTokens: 3 },
      finishReason: 'tool-calls',
    })
  })

  it('retries and falls back exactly as the stream does, and throws the final failure', async () => {
    const primary = createFakeProvider({ replies: [{ events: [], error: new UpstreamHttpError(503, '') }] })
    const fallback = createFakeProvider({ replies: [[{ type: 'text-delta', text: '备用' }]] })
    const provider = createResilientProvider({
      primary,
      fallbacks: [fallback],
      maxRetries: 0,
      sleep: async () => {},
    })
    expect((await provider.chat(request)).text).toBe('备用')

    const failing = createResilientProvider({
      primary: createFakeProvider({ defaultReply: { events: [], error: new UpstreamHttpError(401, 'no') } }),
      maxRetries: 0,
    })
    await expect(failing.chat(request)).rejects.toMatchObject({ code: 'upstream_http', status: 401 })
  })
})
