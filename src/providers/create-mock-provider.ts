/**
 * The builtin `mock` provider, the default when no config exists. It runs in process: the reply is
 * composed here and streamed as provider events in small chunks with a short pause between them, so
 * trying charpipe without a key still shows streamed text, sentences and emotions. It opens no
 * socket, reads no file and takes no instruction from the request: nothing a chat client sends can
 * make it do more than echo a little of what the user said. (The scriptable mock model server,
 * `charpipe mock-llm` / `startMockModelServer`, is a separate test tool a user starts on purpose.)
 * Replies are in the configured reply format, show off an emotion, echo a bit of what the user said,
 * and say plainly that they come from a mock.
 */
import { AbortedError } from '../shared/errors.js'
import { messageText } from '../shared/messages.js'
import type { ChatProviderSettings } from './chat-provider-settings.js'
import { composeMockReply } from './compose-mock-reply.js'
import type { ChatProvider, ChatRequest, ProviderEvent, StreamChatOptions } from './types.js'

const defaultChunkSize = 3
const defaultChunkDelayMs = 5

function lastUserText(request: ChatRequest): string {
  for (let index = request.messages.length - 1; index >= 0; index--) {
    const message = request.messages[index]!
    // Echo what the user said, not the tone note the pipeline appended ([用户语气：…], [User tone: …]).
    if (message.role === 'user')
      return messageText(message).replace(/\s*\[(?:用户语气：|User tone: )[^\]]*\]\s*$/u, '')
  }
  return ''
}

function countInputCharacters(request: ChatRequest): number {
  let count = 0
  for (const message of request.messages) count += messageText(message).length
  return count
}

/** Waits `ms`, or rejects with `AbortedError` as soon as `signal` fires. */
function pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new AbortedError('the request was aborted'))
    const onAbort = () => {
      clearTimeout(timer)
      reject(new AbortedError('the request was aborted'))
    }
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort)
      resolve()
    }, ms)
    signal?.addEventListener('abort', onAbort, { once: true })
  })
}

export function createMockProvider(settings: ChatProviderSettings): ChatProvider {
  const mock = settings.mock ?? {}
  const model = settings.model || 'mock-character'
  const chunkSize = Math.max(1, mock.chunkSize ?? defaultChunkSize)
  const delayMs = Math.max(0, mock.chunkDelayMs ?? defaultChunkDelayMs)

  return {
    name: settings.name,
    model,
    async *streamChat(request: ChatRequest, options?: StreamChatOptions): AsyncIterable<ProviderEvent> {
      const signal = options?.signal
      if (signal?.aborted) throw new AbortedError('the request was aborted')
      const reply = composeMockReply({
        userText: lastUserText(request),
        replyFormat: mock.replyFormat,
        emotions: mock.emotions,
        characterName: mock.characterName,
      })
      // Chunks by code point, so a chunk never splits a surrogate pair.
      const characters = Array.from(reply.text)
      for (let start = 0; start < characters.length; start += chunkSize) {
        if (start > 0 && delayMs > 0) await pause(delayMs, signal)
        else if (signal?.aborted) throw new AbortedError('the request was aborted')
        yield { type: 'text-delta', text: characters.slice(start, start + chunkSize).join('') }
      }
      yield {
        type: 'usage',
        usage: { inputTokens: countInputCharacters(request), outputTokens: characters.length },
      }
      yield { type: 'finish', reason: 'stop' }
    },
  }
}
