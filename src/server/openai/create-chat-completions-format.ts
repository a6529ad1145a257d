/**
 * The Chat Completions wire format (`/v1/chat/completions`): a turn's events as
 * `chat.completion.chunk` messages, and the whole `chat.completion` of an answer that is not
 * streamed, from the same mapping so both always agree. The model's calls of the client's tools
 * end the answer as `tool_calls`; a stream cut by a failure ends with an `{"error":…}` message and
 * no `finish_reason` that would call the reply complete, as OpenAI-compatible servers send it.
 * The character's inner thought (`llm_thought`) is reasoning, never content: `reasoning_content`,
 * the field DeepSeek and OpenRouter-compatible clients read.
 */
import type { CharpipeEvent, LlmDoneEvent, ToolCallEvent } from '../../shared/events.js'
import type { EmotionDialectWriter } from './create-emotion-dialect-writer.js'
import { convertToOpenAIError } from './send-openai-error.js'
import type { TurnEnding, WireChunk, WireFormat } from './wire-format.js'

export interface ChatCompletionUsage {
  prompt_tokens: number
  completion_tokens: number
  total_tokens: number
  prompt_tokens_details?: { cached_tokens: number }
}

export interface ChatCompletionsFormatOptions {
  id: string
  /** Seconds since the epoch. */
  created: number
  model: string
  emotionWriter: EmotionDialectWriter
  /** `stream_options.include_usage`: a last chunk with the usage. */
  includeUsage: boolean
  countUsage(done: LlmDoneEvent): ChatCompletionUsage
}

interface WireToolCall {
  id: string
  type: 'function'
  function: { name: string; arguments: string }
}

/** A call of the client's tool as Chat Completions writes it: the arguments as JSON text. */
function convertToWireToolCall(call: ToolCallEvent): WireToolCall {
  const text = typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments ?? {})
  return { id: call.id, type: 'function', function: { name: call.name, arguments: text } }
}

export function createChatCompletionsFormat(options: ChatCompletionsFormatOptions) {
  const { emotionWriter: writer } = options
  const toolCalls: WireToolCall[] = []
  let emotion = ''
  /** Display text given to the writer and not yet written out (an inline dialect holds it). */
  let held = ''
  /** Everything the writer wrote, joined: the content of an answer that is not streamed. */
  let content = ''
  /** The turn's inner thoughts, for `message.reasoning_content` of an answer that is not streamed. */
  let reasoning = ''

  const chunk = (delta: Record<string, unknown>, finishReason: string | null = null) => ({
    id: options.id,
    object: 'chat.completion.chunk',
    created: options.created,
    model: options.model,
    choices: [{ index: 0, delta, finish_reason: finishReason, logprobs: null }],
  })
  const message = (value: unknown, text?: string): WireChunk =>
    text ? { data: JSON.stringify(value), text } : { data: JSON.stringify(value) }
  /** What the writer returned, as a content chunk carrying the display text it released. */
  const write = (written: string): WireChunk[] => {
    if (!written) return []
    content += written
    const text = held
    held = ''
    return [message(chunk({ content: written }), text)]
  }
  const finishReason = (done: LlmDoneEvent) =>
    toolCalls.length > 0 ? 'tool_calls' : done.interrupted ? 'length' : 'stop'

  const format = {
    start: () => [message(chunk({ role: 'assistant', content: '' }))],
    push(event: CharpipeEvent): WireChunk[] {
      if (event.type === 'llm_emotion') emotion = event.emotion
      if (event.type === 'llm_thought') {
        reasoning += reasoning ? `\n${event.text}` : event.text
        return [message(chunk({ reasoning_content: event.text }))]
      }
      if (event.type === 'tool_call' && event.client) {
        // The text before the call first, with its tag in an inline dialect.
        const before = write(writer.end(emotion))
        const call = { index: toolCalls.length, ...convertToWireToolCall(event) }
        toolCalls.push(convertToWireToolCall(event))
        return [...before, message(chunk({ tool_calls: [call] }))]
      }
      if (event.type === 'llm_chunk' && event.text) {
        held += event.text
        return write(writer.writeText(event.text))
      }
      if (event.type === 'llm_emotion' && writer.usesField)
        return [message(chunk({ emotion: event.emotion }))]
      // An inline dialect writes the text held until its emotion was known, after its tag.
      if (event.type === 'llm_emotion' || event.type === 'llm_sentence')
        return write(writer.writeEmotion(event.emotion))
      return []
    },
    close(ending: TurnEnding): WireChunk[] {
      return ending.done ? write(writer.end(ending.done.emotion)) : []
    },
    end(ending: TurnEnding): WireChunk[] {
      const { done, failure } = ending
      const chunks: WireChunk[] = []
      if (failure || !done) {
        // Cut by a failure: an error object and no finish_reason that would call the reply complete.
        if (failure) chunks.push(message({ error: convertToOpenAIError(failure) }))
      } else {
        const delta = writer.usesField ? { emotion: done.emotion } : {}
        chunks.push(message(chunk(delta, finishReason(done))))
      }
      if (done && options.includeUsage)
        chunks.push(message({ ...chunk({}), choices: [], usage: options.countUsage(done) }))
      chunks.push({ data: '[DONE]' })
      return chunks
    },
    /** The `chat.completion` of an answer that is not streamed, after `close`. */
    answer(done: LlmDoneEvent) {
      const whole = writer.writeWhole(done.text, content, done.emotion)
      return {
        id: options.id,
        object: 'chat.completion',
        created: options.created,
        model: options.model,
        choices: [
          {
            index: 0,
            message: {
              role: 'assistant',
              content: whole || toolCalls.length === 0 ? whole : null,
              ...(reasoning ? { reasoning_content: reasoning } : {}),
              ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
              ...(writer.usesField ? { emotion: done.emotion } : {}),
              refusal: null,
            },
            finish_reason: finishReason(done),
            logprobs: null,
          },
        ],
        usage: options.countUsage(done),
      }
    },
  } satisfies WireFormat & Record<string, unknown>
  return format
}

export type ChatCompletionsFormat = ReturnType<typeof createChatCompletionsFormat>
