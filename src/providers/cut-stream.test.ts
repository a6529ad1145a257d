/**
 * A connection cut right after some chunks (no delay, or while the consumer is still busy with
 * earlier events): every provider passes on the text that arrived before the cut, then fails with
 * `upstream_stream`, and the retry loop does not try again once text was passed on.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import type { MockReply } from '../testing/mock-reply.js'
import { type MockModelServer, startMockModelServer } from '../testing/start-mock-model-server.js'
import type { ChatProviderSettings } from './chat-provider-settings.js'
import { createChatProvider } from './create-chat-provider.js'
import { createResilientProvider } from './create-resilient-provider.js'
import { captureLogger, collectEvents } from './test-helpers.js'
import type { ChatRequest, ProviderEvent } from './types.js'

let server: MockModelServer
beforeAll(async () => {
  server = await startMockModelServer()
})
afterAll(() => server.close())
beforeEach(() => server.reset())

const request: ChatRequest = { messages: [{ role: 'user', content: '你好' }] }

/** Per provider: its settings and how many events come before the first text chunk. */
const providers: Record<string, { settings: () => ChatProviderSettings; eventsBeforeText: number }> = {
  openai: {
    settings: () => ({ name: 'custom', apiType: 'openai', baseUrl: `${server.url}/v1`, model: 'm' }),
    // The role chunk.
    eventsBeforeText: 1,
  },
  anthropic: {
    settings: () => ({
      name: 'anthropic',
      apiType: 'anthropic',
      baseUrl: server.url,
      model: 'claude',
      apiKey: 'sk-ant-test-0000',
    }),
    // message_start and content_block_start.
    eventsBeforeText: 2,
  },
  openclaw: {
    settings: () => ({ name: 'openclaw', apiType: 'openclaw', baseUrl: server.url, model: 'openclaw' }),
    eventsBeforeText: 1,
  },
}

/** Reads the stream, busy with its first event until the mock server has cut the connection. */
async function collectSlowly(stream: AsyncIterable<ProviderEvent>) {
  let text = ''
  try {
    for await (const event of stream) {
      if (event.type === 'text-delta') text += event.text
      // A consumer still busy with earlier events while the rest of the reply and the cut arrive.
      await server.requests[0]?.closed
    }
  } catch (error) {
    return { text, error: error as { code?: string } }
  }
  return { text, error: undefined }
}

describe.each(Object.entries(providers))('%s provider: a connection cut midway', (_name, provider) => {
  const cutAfterText = (chunks: number, extra: Partial<MockReply> = {}): MockReply => ({
    text: '第一句。第二句。第三句。',
    chunkSize: 2,
    breakAfterChunks: provider.eventsBeforeText + chunks,
    ...extra,
  })

  it('with no delay passes on the text that arrived, then fails with upstream_stream', async () => {
    server.script(cutAfterText(4))
    const log = captureLogger()
    const chat = createChatProvider({ ...provider.settings(), logger: log.logger })
    const result = await collectEvents(chat.streamChat(request))
    expect(result.text).toBe('第一句。第二句。')
    expect(result.error?.code).toBe('upstream_stream')
    expect(result.events.at(-1)?.type).toBe('text-delta')
  })

  it('keeps text that arrived while the consumer was busy with earlier events', async () => {
    server.script(cutAfterText(5, { delayMs: 2 }))
    const chat = createChatProvider({ ...provider.settings(), logger: captureLogger().logger })
    const result = await collectSlowly(chat.streamChat(request))
    expect(result.text).toBe('第一句。第二句。第三')
    expect(result.error?.code).toBe('upstream_stream')
  })

  it('is not retried once text was passed on', async () => {
    server.script([cutAfterText(2), { text: '不该出现' }])
    const log = captureLogger()
    const chat = createResilientProvider({
      primary: createChatProvider({ ...provider.settings(), logger: log.logger }),
      maxRetries: 2,
      baseDelayMs: 1,
      logger: log.logger,
    })
    const result = await collectEvents(chat.streamChat(request))
    expect(result.text).toBe('第一句。')
    expect(result.error?.code).toBe('upstream_stream')
    expect(server.requests).toHaveLength(1)
  })
})
