/**
 * The non-streaming side of a provider (seed 004's `chat()` beside `stream_chat()`): the stream of
 * provider events collected into one result. It is built on `streamChat` rather than on each API's
 * non-streamed endpoint, so errors, timeouts, retries and fallbacks follow the one streaming path.
 */
import type { ToolCall } from '../shared/messages.js'
import type {
  ChatProvider,
  ChatRequest,
  FinishReason,
  ProviderEvent,
  StreamChatOptions,
  Usage,
} from './types.js'

export interface ChatResult {
  /** The whole reply text. */
  text: string
  /** Reasoning the model reported (never spoken); empty when none. */
  reasoning: string
  /** Complete tool calls, in the order they arrived. */
  toolCalls: ToolCall[]
  /** Present when the model reported usage. */
  usage?: Usage
  /** Present when the stream said why it ended. */
  finishReason?: FinishReason
}

/** Reads a provider event stream to its end; a failure is thrown as the stream threw it. */
export async function collectChatResult(events: AsyncIterable<ProviderEvent>): Promise<ChatResult> {
  const result: ChatResult = { text: '', reasoning: '', toolCalls: [] }
  for await (const event of events) {
    if (event.type === 'text-delta') result.text += event.text
    else if (event.type === 'reasoning-delta') result.reasoning += event.text
    else if (event.type === 'tool-call')
      result.toolCalls.push({ id: event.id, name: event.name, arguments: event.arguments })
    else if (event.type === 'usage') result.usage = event.usage
    else if (event.type === 'finish') result.finishReason = event.reason
  }
  return result
}

/** One request answered as a whole, through the provider's streaming call. */
export function chat(
  provider: ChatProvider,
  request: ChatRequest,
  options: StreamChatOptions = {},
): Promise<ChatResult> {
  return collectChatResult(provider.streamChat(request, options))
}
