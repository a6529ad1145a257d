/**
 * A provider that times its replies like a real model, on the test's manual clock: a pause before
 * the first token, then a few characters per chunk at a steady pace. It records every request, and
 * how many of its streams ran at once, so a test can see what reached the model and that turns never
 * overlapped.
 */
import type {
  ChatProvider,
  ChatRequest,
  ProviderEvent,
  StreamChatOptions,
} from '../../src/providers/types.js'
import { AbortedError } from '../../src/shared/errors.js'
import { messageText } from '../../src/shared/messages.js'
import type { ManualClock } from '../../src/testing/index.js'

export interface TimedProvider extends ChatProvider {
  requests: ChatRequest[]
  /** The most streams that ran at the same time. */
  maxConcurrent: number
  running: number
}

export interface TimedProviderOptions {
  clock: ManualClock
  firstTokenMs?: number
  chunkMs?: number
  /** The reply to a request. @default a two-sentence answer */
  reply?: (request: ChatRequest) => string
}

function wait(clock: ManualClock, milliseconds: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new AbortedError())
    const onAbort = () => {
      clock.clearTimer(timer)
      reject(new AbortedError())
    }
    const timer = clock.setTimer(() => {
      signal?.removeEventListener('abort', onAbort)
      resolve()
    }, milliseconds)
    signal?.addEventListener('abort', onAbort, { once: true })
  })
}

export function createTimedProvider(options: TimedProviderOptions): TimedProvider {
  const { clock } = options
  const reply = options.reply ?? (() => '好的，谢谢大家的留言。我们继续聊吧。')
  const provider: TimedProvider = {
    name: 'timed',
    model: 'timed-model',
    requests: [],
    maxConcurrent: 0,
    running: 0,
    async *streamChat(request: ChatRequest, streamOptions: StreamChatOptions = {}) {
      provider.requests.push(request)
      provider.running++
      provider.maxConcurrent = Math.max(provider.maxConcurrent, provider.running)
      try {
        await wait(clock, options.firstTokenMs ?? 800, streamOptions.signal)
        const text = reply(request)
        for (let index = 0; index < text.length; index += 4) {
          yield { type: 'text-delta', text: text.slice(index, index + 4) } satisfies ProviderEvent
          await wait(clock, options.chunkMs ?? 60, streamOptions.signal)
        }
        yield { type: 'finish', reason: 'stop' } satisfies ProviderEvent
      } finally {
        provider.running--
      }
    },
  }
  return provider
}

/** The text of a request's last user message. */
export function lastUserText(request: ChatRequest): string {
  const last = request.messages.filter((message) => message.role === 'user').at(-1)
  return last ? messageText(last) : ''
}
