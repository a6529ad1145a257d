/**
 * The builtin `mock` provider, the default when no config exists: it answers through the same
 * OpenAI-compatible code path as a real provider, against an in-process mock model server started
 * on the first request on an ephemeral loopback port, so trying charpipe without a key exercises
 * real streaming. Replies show off emotions and sentences in the configured reply format, echo a bit
 * of what the user said, and say plainly that they come from a mock.
 */
import { messageText } from '../shared/messages.js'
import { composeMockReply } from '../testing/compose-mock-reply.js'
import { mockReplyHeader } from '../testing/select-mock-reply.js'
import { type MockModelServer, startMockModelServer } from '../testing/start-mock-model-server.js'
import type { ChatProviderSettings } from './chat-provider-settings.js'
import { createOpenAICompatibleProvider } from './create-openai-compatible-provider.js'
import type { ChatProvider, ChatRequest, ProviderEvent, StreamChatOptions } from './types.js'

// One server for the process, shared by every mock provider (a config reload builds a new one).
let sharedServer: Promise<MockModelServer> | undefined

function lastUserText(request: ChatRequest): string {
  for (let index = request.messages.length - 1; index >= 0; index--) {
    const message = request.messages[index]!
    // Echo what the user said, not the tone note the pipeline appended ([用户语气：…]).
    if (message.role === 'user') return messageText(message).replace(/\s*\[用户语气：[^\]]*\]\s*$/u, '')
  }
  return ''
}

export function createMockProvider(settings: ChatProviderSettings): ChatProvider {
  const mock = settings.mock ?? {}
  const model = settings.model || 'mock-character'
  let inner: Promise<ChatProvider> | undefined

  // The reply is composed here, where the configured reply format is known, and sent to the server
  // as the per-request script, so the server stays a plain scriptable mock.
  const requestHeaders = (request: ChatRequest) => {
    const reply = composeMockReply({
      userText: lastUserText(request),
      replyFormat: mock.replyFormat,
      emotions: mock.emotions,
      characterName: mock.characterName,
    })
    const script = { text: reply.text, chunkSize: mock.chunkSize ?? 3, delayMs: mock.chunkDelayMs ?? 5 }
    return { [mockReplyHeader]: `base64:${Buffer.from(JSON.stringify(script)).toString('base64')}` }
  }

  const start = async (): Promise<ChatProvider> => {
    sharedServer ??= startMockModelServer({ unref: true, model })
    const server = await sharedServer
    return createOpenAICompatibleProvider({
      ...settings,
      model,
      baseUrl: `${server.url}/v1`,
      apiKey: 'mock',
      requestHeaders,
    })
  }

  return {
    name: settings.name,
    model,
    async *streamChat(request: ChatRequest, options?: StreamChatOptions): AsyncIterable<ProviderEvent> {
      inner ??= start()
      const provider = await inner
      yield* provider.streamChat(request, options)
    },
  }
}
