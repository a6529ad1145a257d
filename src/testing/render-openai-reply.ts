/**
 * Renders a mock reply in the Chat Completions format: the SSE events of a stream, byte for byte as
 * OpenAI frames them (`data: <json>\n\n` … `data: [DONE]\n\n`), or one `chat.completion` object.
 */
import type { MockReply } from './mock-reply.js'

export interface RenderReplyOptions {
  /** The model id echoed in the reply. */
  model: string
  /** The reply text (the script's, or the composed default). */
  text: string
  /** Send the usage chunk (`stream_options.include_usage`). */
  includeUsage?: boolean
}

/** The length of the code point at `index`: 2 for a surrogate pair, 1 otherwise (as `Array.from` counts). */
function codePointLengthAt(text: string, index: number): number {
  const unit = text.charCodeAt(index)
  if (unit < 0xd800 || unit > 0xdbff || index + 1 >= text.length) return 1
  return (text.charCodeAt(index + 1) & 0xfc00) === 0xdc00 ? 2 : 1
}

/** Code points in `text`, without making an array of them (a reply of megabytes made millions). */
export function countCodePoints(text: string): number {
  let count = 0
  for (let index = 0; index < text.length; index += codePointLengthAt(text, index)) count++
  return count
}

/**
 * Splits text into pieces of `size` characters (code points, so no emoji is cut in half). Sliced in
 * place: an array of every character of a long reply held the mock's process (often the test's own,
 * beside the server under test) for half a second and more.
 */
export function splitIntoChunks(text: string, size: number): string[] {
  const pieces: string[] = []
  let start = 0
  let inPiece = 0
  for (let index = 0; index < text.length; ) {
    index += codePointLengthAt(text, index)
    if (++inPiece === size) {
      pieces.push(text.slice(start, index))
      start = index
      inPiece = 0
    }
  }
  if (start < text.length) pieces.push(text.slice(start))
  return pieces
}

function toolArguments(value: string | Record<string, unknown> | undefined): string {
  return typeof value === 'string' ? value : JSON.stringify(value ?? {})
}

function countUsage(
  reply: MockReply,
  text: string,
): { prompt_tokens: number; completion_tokens: number; prompt_tokens_details?: { cached_tokens: number } } {
  if (reply.usage)
    return {
      prompt_tokens: reply.usage.inputTokens,
      completion_tokens: reply.usage.outputTokens,
      ...(reply.usage.cachedInputTokens === undefined
        ? {}
        : { prompt_tokens_details: { cached_tokens: reply.usage.cachedInputTokens } }),
    }
  const output = countCodePoints(text) + countCodePoints(reply.reasoning ?? '')
  return { prompt_tokens: 10, completion_tokens: output }
}

function finishReasonOf(reply: MockReply): string {
  return reply.finishReason ?? (reply.toolCalls?.length ? 'tool_calls' : 'stop')
}

export function renderOpenAIEvents(reply: MockReply, options: RenderReplyOptions): string[] {
  const id = `chatcmpl-mock-${Date.now().toString(36)}`
  const created = Math.floor(Date.now() / 1000)
  const size = reply.chunkSize ?? 8
  const frame = (choices: unknown[], usage: unknown = null) =>
    `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model: options.model, choices, usage })}\n\n`
  const delta = (value: Record<string, unknown>, finishReason: string | null = null) =>
    frame([{ index: 0, delta: value, finish_reason: finishReason }])

  const events = [delta({ role: 'assistant', content: '' })]
  for (const piece of splitIntoChunks(reply.reasoning ?? '', size))
    events.push(delta({ reasoning_content: piece }))
  for (const piece of splitIntoChunks(options.text, size)) events.push(delta({ content: piece }))
  reply.toolCalls?.forEach((call, index) => {
    const header = { index, id: call.id ?? `call_mock_${index}`, type: 'function' }
    events.push(delta({ tool_calls: [{ ...header, function: { name: call.name, arguments: '' } }] }))
    for (const piece of splitIntoChunks(toolArguments(call.arguments), size)) {
      events.push(delta({ tool_calls: [{ index, function: { arguments: piece } }] }))
    }
  })
  if (!reply.omitFinishReason) events.push(delta({}, finishReasonOf(reply)))
  if (options.includeUsage) {
    const usage = countUsage(reply, options.text)
    events.push(frame([], { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens }))
  }
  if (!reply.omitDone) events.push('data: [DONE]\n\n')
  return events
}

export function renderOpenAICompletion(
  reply: MockReply,
  options: RenderReplyOptions,
): Record<string, unknown> {
  const usage = countUsage(reply, options.text)
  const toolCalls = reply.toolCalls?.map((call, index) => ({
    id: call.id ?? `call_mock_${index}`,
    type: 'function',
    function: { name: call.name, arguments: toolArguments(call.arguments) },
  }))
  return {
    id: `chatcmpl-mock-${Date.now().toString(36)}`,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model: options.model,
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: options.text || (toolCalls?.length ? null : ''),
          ...(reply.reasoning ? { reasoning_content: reply.reasoning } : {}),
          ...(toolCalls?.length ? { tool_calls: toolCalls } : {}),
        },
        finish_reason: finishReasonOf(reply),
      },
    ],
    usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens },
  }
}
