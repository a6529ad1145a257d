/**
 * A `ChatProvider` that runs without any server: each call yields the next scripted list of events
 * (or throws the scripted error, before or after some events) and records what it was asked. For
 * unit tests of the stages that consume providers.
 *
 * @example
 * const provider = createFakeProvider({ replies: [[{ type: 'text-delta', text: '你好' }]] })
 * for await (const event of provider.streamChat({ messages })) …
 * provider.calls[0].request.messages
 */

import type { ChatProvider, ChatRequest, ProviderEvent, StreamChatOptions } from '../providers/types.js'
import { AbortedError, type CharpipeError } from '../shared/errors.js'

export interface FakeReply {
  events: ProviderEvent[]
  /** Thrown after the events (or before any, when `events` is empty). */
  error?: CharpipeError | Error
  /** Pause before each event, so aborts and interruptions can be exercised. @default 0 */
  delayMs?: number
}

export interface CreateFakeProviderOptions {
  name?: string
  model?: string
  /** One entry per call, in order; a bare event list is a reply without error. */
  replies?: (FakeReply | ProviderEvent[])[]
  /** Used once `replies` run out. @default a short text reply with a stop finish */
  defaultReply?: FakeReply | ProviderEvent[]
}

export interface FakeProviderCall {
  request: ChatRequest
  /** Whether the caller aborted (or left the loop) before the reply ended. */
  aborted: boolean
}

export interface FakeProvider extends ChatProvider {
  readonly calls: FakeProviderCall[]
  /** Queues more replies. */
  script(...replies: (FakeReply | ProviderEvent[])[]): void
}

const defaultEvents: ProviderEvent[] = [
  { type: 'text-delta', text: '好的。' },
  { type: 'usage', usage: { inputTokens: 1, outputTokens: 3 } },
  { type: 'finish', reason: 'stop' },
]

function normalize(reply: FakeReply | ProviderEvent[]): FakeReply {
  return Array.isArray(reply) ? { events: reply } : reply
}

function wait(milliseconds: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new AbortedError())
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort)
      resolve()
    }, milliseconds)
    const onAbort = () => {
      clearTimeout(timer)
      reject(new AbortedError())
    }
    signal?.addEventListener('abort', onAbort, { once: true })
  })
}

export function createFakeProvider(options: CreateFakeProviderOptions = {}): FakeProvider {
  const queue = (options.replies ?? []).map(normalize)
  const fallback = normalize(options.defaultReply ?? defaultEvents)
  const calls: FakeProviderCall[] = []
  return {
    name: options.name ?? 'fake',
    model: options.model ?? 'fake-model',
    calls,
    script(...replies) {
      queue.push(...replies.map(normalize))
    },
    async *streamChat(request: ChatRequest, streamOptions: StreamChatOptions = {}) {
      const call: FakeProviderCall = { request, aborted: false }
      calls.push(call)
      const reply = queue.shift() ?? fallback
      const { signal } = streamOptions
      let ended = false
      try {
        for (const event of reply.events) {
          if (reply.delayMs) await wait(reply.delayMs, signal)
          if (signal?.aborted) throw new AbortedError()
          yield event
        }
        ended = true
        if (reply.error) throw reply.error
      } finally {
        // Not ended: the caller aborted or left the loop before the scripted reply was over.
        if (!ended) call.aborted = true
      }
    },
  }
}
