/**
 * Turns OpenAI-format `chat.completion.chunk` objects into provider events. Handles what the
 * recorded streams show: usage on the last chunk with choices (DeepSeek), on a `choices: []` chunk
 * (OpenAI, Qwen) or on a chunk with an empty delta (Kimi); `reasoning_content` (DeepSeek) and
 * `reasoning` (Ollama) as reasoning; inline `<think>` in content; tool-call deltas by index.
 * Tool calls are released at `finish_reason`; usage and the finish reason at the end of the stream.
 */
import { UpstreamStreamError } from '../shared/errors.js'
import { lookUpOwn } from '../shared/look-up-own.js'
import { redactText } from '../shared/redact.js'
import { createThinkTagSplitter } from './create-think-tag-splitter.js'
import { createToolCallAccumulator, type ToolCallDelta } from './create-tool-call-accumulator.js'
import { readWireText } from './read-wire-text.js'
import type { FinishReason, ProviderEvent, Usage } from './types.js'

export interface OpenAIChunkParser {
  /** Handles one parsed chunk, appending events to `out`. */
  push(chunk: unknown, out: ProviderEvent[]): void
  /** Handles a chunk that carries only content (read-plain-content-delta.ts), appending events to `out`. */
  pushContent(content: string, out: ProviderEvent[]): void
  /** Ends the stream: remaining tool calls, usage and the finish event go to `out`. */
  end(out: ProviderEvent[]): void
  /** Whether the upstream sent a `finish_reason`. */
  readonly finished: boolean
}

interface ChunkChoice {
  index?: number
  delta?: {
    content?: string | null
    reasoning_content?: string | null
    reasoning?: string | null
    tool_calls?: ToolCallDelta[] | null
  } | null
  finish_reason?: string | null
}

interface ChunkUsage {
  prompt_tokens?: number
  completion_tokens?: number
  prompt_tokens_details?: { cached_tokens?: number } | null
  completion_tokens_details?: { reasoning_tokens?: number } | null
  prompt_cache_hit_tokens?: number
}

interface Chunk {
  choices?: ChunkChoice[] | null
  usage?: ChunkUsage | null
  error?: { message?: string; type?: string; code?: string } | string | null
}

const finishReasons: Record<string, FinishReason> = {
  stop: 'stop',
  length: 'length',
  tool_calls: 'tool-calls',
  function_call: 'tool-calls',
  content_filter: 'content-filter',
}

/** A token count, or 0 for a field that is none (usage only informs: it never ends a stream). */
const readCount = (value: unknown) => (typeof value === 'number' && Number.isFinite(value) ? value : 0)

function convertUsage(usage: ChunkUsage): Usage {
  const result: Usage = {
    inputTokens: readCount(usage.prompt_tokens),
    outputTokens: readCount(usage.completion_tokens),
  }
  const reasoning = usage.completion_tokens_details?.reasoning_tokens
  if (typeof reasoning === 'number') result.reasoningTokens = reasoning
  const cached = usage.prompt_tokens_details?.cached_tokens ?? usage.prompt_cache_hit_tokens
  if (typeof cached === 'number') result.cachedInputTokens = cached
  return result
}

function describeInBandError(error: NonNullable<Chunk['error']>): string {
  if (typeof error === 'string') return redactText(error).slice(0, 300)
  if (typeof error.message === 'string') return redactText(error.message).slice(0, 300)
  try {
    return redactText(JSON.stringify(error)).slice(0, 300)
  } catch {
    // Parsed JSON always stringifies, unless nested past the stack.
    return 'an error nested too deep to show'
  }
}

const chunkName = 'a stream chunk'

export function createOpenAIChunkParser(): OpenAIChunkParser {
  let target: ProviderEvent[] = []
  const splitter = createThinkTagSplitter(
    (text) => target.push({ type: 'text-delta', text }),
    (text) => target.push({ type: 'reasoning-delta', text }),
  )
  const toolCalls = createToolCallAccumulator()
  let usage: Usage | undefined
  let finishReason: FinishReason | undefined

  return {
    get finished() {
      return finishReason !== undefined
    },
    push(value, out) {
      if (value === null || typeof value !== 'object') {
        throw new UpstreamStreamError('upstream sent a stream chunk that is not a JSON object')
      }
      const chunk = value as Chunk
      if (chunk.error) {
        throw new UpstreamStreamError(
          `upstream reported an error mid-stream: ${describeInBandError(chunk.error)}`,
        )
      }
      target = out
      const choice = chunk.choices?.[0]
      if (choice) {
        const delta = choice.delta
        if (delta) {
          const reasoning =
            readWireText(delta.reasoning_content, chunkName, 'choices[0].delta.reasoning_content') ??
            readWireText(delta.reasoning, chunkName, 'choices[0].delta.reasoning')
          if (reasoning) out.push({ type: 'reasoning-delta', text: reasoning })
          const content = readWireText(delta.content, chunkName, 'choices[0].delta.content')
          if (content) splitter.push(content)
          const calls = delta.tool_calls
          if (calls !== undefined && calls !== null) {
            if (!Array.isArray(calls))
              throw new UpstreamStreamError(
                'upstream sent a stream chunk whose choices[0].delta.tool_calls is not an array',
              )
            for (let position = 0; position < calls.length; position++)
              toolCalls.push(calls[position]!, position)
          }
        }
        const reason = readWireText(choice.finish_reason, chunkName, 'choices[0].finish_reason')
        if (reason) {
          finishReason = lookUpOwn(finishReasons, reason) ?? 'other'
          splitter.end()
          for (const call of toolCalls.drain()) out.push(call)
        }
      }
      if (chunk.usage) usage = convertUsage(chunk.usage)
    },
    pushContent(content, out) {
      target = out
      if (content) splitter.push(content)
    },
    end(out) {
      target = out
      splitter.end()
      const hadCalls = toolCalls.size > 0
      for (const call of toolCalls.drain()) out.push(call)
      if (usage) out.push({ type: 'usage', usage })
      // Gateways (OpenClaw, Kimi through a router) may end with [DONE] and no finish_reason at all.
      out.push({ type: 'finish', reason: finishReason ?? (hadCalls ? 'tool-calls' : 'stop') })
    },
  }
}
