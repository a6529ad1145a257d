/**
 * Renders a mock reply in the Anthropic Messages format: the SSE events of a stream, each an
 * `event: <type>` line plus a `data:` line (no `[DONE]`: the Anthropic SDK dispatches on the event
 * name and the stream ends with `message_stop`), or one `message` object.
 */
import type { MockReply } from './mock-reply.js'
import { countCodePoints, type RenderReplyOptions, splitIntoChunks } from './render-openai-reply.js'

const stopReasons: Record<string, string> = { stop: 'end_turn', tool_calls: 'tool_use', length: 'max_tokens' }

function stopReasonOf(reply: MockReply): string {
  if (reply.finishReason) return stopReasons[reply.finishReason] ?? reply.finishReason
  return reply.toolCalls?.length ? 'tool_use' : 'end_turn'
}

function argumentsText(value: string | Record<string, unknown> | undefined): string {
  return typeof value === 'string' ? value : JSON.stringify(value ?? {})
}

function usageOf(
  reply: MockReply,
  text: string,
): { input_tokens: number; output_tokens: number; cache_read_input_tokens?: number } {
  if (reply.usage)
    return {
      input_tokens: reply.usage.inputTokens,
      output_tokens: reply.usage.outputTokens,
      ...(reply.usage.cachedInputTokens === undefined
        ? {}
        : { cache_read_input_tokens: reply.usage.cachedInputTokens }),
    }
  return {
    input_tokens: 10,
    output_tokens: countCodePoints(text) + countCodePoints(reply.reasoning ?? ''),
  }
}

export function renderAnthropicEvents(reply: MockReply, options: RenderReplyOptions): string[] {
  const size = reply.chunkSize ?? 8
  const frame = (value: { type: string } & Record<string, unknown>) =>
    `event: ${value.type}\ndata: ${JSON.stringify(value)}\n\n`
  const usage = usageOf(reply, options.text)
  const events = [
    frame({
      type: 'message_start',
      message: {
        id: `msg_mock_${Date.now().toString(36)}`,
        type: 'message',
        role: 'assistant',
        model: options.model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: {
          input_tokens: usage.input_tokens,
          output_tokens: 1,
          ...(usage.cache_read_input_tokens === undefined
            ? {}
            : { cache_read_input_tokens: usage.cache_read_input_tokens }),
        },
      },
    }),
  ]
  let index = 0
  const block = (start: Record<string, unknown>, deltas: Record<string, unknown>[]) => {
    events.push(frame({ type: 'content_block_start', index, content_block: start }))
    for (const delta of deltas) events.push(frame({ type: 'content_block_delta', index, delta }))
    events.push(frame({ type: 'content_block_stop', index }))
    index++
  }
  if (reply.reasoning) {
    const pieces = splitIntoChunks(reply.reasoning, size)
    block({ type: 'thinking', thinking: '' }, [
      ...pieces.map((thinking) => ({ type: 'thinking_delta', thinking })),
      { type: 'signature_delta', signature: 'mock-signature' },
    ])
  }
  if (options.text || !reply.toolCalls?.length) {
    block(
      { type: 'text', text: '' },
      splitIntoChunks(options.text, size).map((text) => ({ type: 'text_delta', text })),
    )
  }
  reply.toolCalls?.forEach((call, position) => {
    block(
      { type: 'tool_use', id: call.id ?? `toolu_mock_${position}`, name: call.name, input: {} },
      splitIntoChunks(argumentsText(call.arguments), size).map((partial_json) => ({
        type: 'input_json_delta',
        partial_json,
      })),
    )
  })
  events.push(
    frame({
      type: 'message_delta',
      delta: { stop_reason: stopReasonOf(reply), stop_sequence: null },
      usage: { output_tokens: usage.output_tokens },
    }),
  )
  events.push(frame({ type: 'message_stop' }))
  if (reply.streamError) {
    const { after, type, message } = reply.streamError
    const error = `event: error\ndata: ${JSON.stringify({ type: 'error', error: { type, message } })}\n\n`
    return [...events.slice(0, after), error]
  }
  return events
}

export function renderAnthropicMessage(
  reply: MockReply,
  options: RenderReplyOptions,
): Record<string, unknown> {
  const content: Record<string, unknown>[] = []
  if (reply.reasoning)
    content.push({ type: 'thinking', thinking: reply.reasoning, signature: 'mock-signature' })
  if (options.text) content.push({ type: 'text', text: options.text })
  reply.toolCalls?.forEach((call, position) => {
    const input =
      typeof call.arguments === 'string' ? JSON.parse(call.arguments || '{}') : (call.arguments ?? {})
    content.push({ type: 'tool_use', id: call.id ?? `toolu_mock_${position}`, name: call.name, input })
  })
  return {
    id: `msg_mock_${Date.now().toString(36)}`,
    type: 'message',
    role: 'assistant',
    model: options.model,
    content,
    stop_reason: stopReasonOf(reply),
    stop_sequence: null,
    usage: usageOf(reply, options.text),
  }
}
