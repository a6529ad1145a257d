/**
 * Turns the SSE events of an Anthropic Messages stream into provider events, as the SDK's `Stream`
 * would hand them over: events without an `event:` name, `ping`s and empty data are skipped; an
 * `event: error` (e.g. `overloaded_error`) ends the stream with `upstream_stream`, retryable while
 * nothing has been passed on yet. Text and thinking deltas go out as they come; a `tool_use` block is
 * released whole at its `content_block_stop`; usage and the stop reason at the end.
 */
import { UpstreamStreamError } from '../shared/errors.js'
import { excerptErrorBody } from '../shared/excerpt-error-body.js'
import { lookUpOwn } from '../shared/look-up-own.js'
import type { SseEvent } from './create-sse-decoder.js'
import { readPlainTextDelta } from './read-plain-text-delta.js'
import { readWireText } from './read-wire-text.js'
import type { FinishReason, ProviderEvent, Usage } from './types.js'

export interface AnthropicEventParser {
  /** Handles one SSE event, appending provider events to `out`. */
  push(event: SseEvent, out: ProviderEvent[]): void
  /** Ends the stream: usage and the finish event go to `out`. */
  end(out: ProviderEvent[]): void
  /** Whether `message_stop` arrived (after it nothing counts). */
  readonly stopped: boolean
}

const stopReasons: Record<string, FinishReason> = {
  end_turn: 'stop',
  stop_sequence: 'stop',
  max_tokens: 'length',
  tool_use: 'tool-calls',
  refusal: 'content-filter',
}

const retryableStreamErrors = new Set(['overloaded_error', 'api_error', 'rate_limit_error'])

interface PendingToolUse {
  id: string
  name: string
  json: string
}

/** The subset of the wire events read here (the SDK's `RawMessageStreamEvent`, loosely typed). */
interface WireEvent {
  type?: string
  index?: number
  message?: { usage?: WireUsage }
  content_block?: { type?: string; text?: string; id?: string; name?: string }
  delta?: {
    type?: string
    text?: string
    thinking?: string
    partial_json?: string
    stop_reason?: string | null
  }
  usage?: WireUsage
}

interface WireUsage {
  input_tokens?: number | null
  output_tokens?: number | null
  cache_read_input_tokens?: number | null
}

/** The error of an `event: error`: its type when the body names one (then maybe retryable). */
function convertStreamError(data: string, passedOn: boolean): UpstreamStreamError {
  let body: { error?: { type?: unknown; message?: unknown } } | undefined
  try {
    body = JSON.parse(data)
  } catch {}
  const type = body?.error?.type
  if (typeof type !== 'string') {
    const message = excerptErrorBody(data)
    return new UpstreamStreamError(`upstream reported an error mid-stream${message ? `: ${message}` : ''}`)
  }
  const message = excerptErrorBody(body)
  return new UpstreamStreamError(`upstream reported ${type} mid-stream: ${message}`, {
    retryable: !passedOn && retryableStreamErrors.has(type),
  })
}

function parseToolInput(tool: PendingToolUse): ProviderEvent {
  const rawArguments = tool.json.trim() === '' ? '{}' : tool.json
  let parsed: unknown
  try {
    parsed = JSON.parse(rawArguments)
  } catch {
    throw new UpstreamStreamError(`upstream sent tool_use "${tool.name}" with input that is not JSON`)
  }
  return { type: 'tool-call', id: tool.id, name: tool.name, arguments: parsed, rawArguments }
}

export function createAnthropicEventParser(): AnthropicEventParser {
  const usage: Usage = { inputTokens: 0, outputTokens: 0 }
  const tools = new Map<number, PendingToolUse>()
  let stopReason: FinishReason | undefined
  let stopped = false
  let passedOn = false

  const handleDelta = (event: WireEvent, out: ProviderEvent[]) => {
    const delta = event.delta
    if (!delta) return
    if (delta.type === 'text_delta') {
      const text = readWireText(delta.text, 'a content_block_delta', 'delta.text')
      if (!text) return
      passedOn = true
      out.push({ type: 'text-delta', text })
    } else if (delta.type === 'thinking_delta') {
      const thinking = readWireText(delta.thinking, 'a content_block_delta', 'delta.thinking')
      if (!thinking) return
      passedOn = true
      out.push({ type: 'reasoning-delta', text: thinking })
    } else if (delta.type === 'input_json_delta') {
      const json = readWireText(delta.partial_json, 'a content_block_delta', 'delta.partial_json')
      const tool = tools.get(event.index ?? -1)
      if (tool) tool.json += json ?? ''
    }
  }

  const handleBlockStart = (event: WireEvent, out: ProviderEvent[]) => {
    const block = event.content_block
    if (block?.type === 'tool_use')
      tools.set(event.index ?? -1, {
        id: readWireText(block.id, 'a content_block_start', 'content_block.id') ?? '',
        name: readWireText(block.name, 'a content_block_start', 'content_block.name') ?? '',
        json: '',
      })
    else if (block?.type === 'text') {
      const text = readWireText(block.text, 'a content_block_start', 'content_block.text')
      if (!text) return
      passedOn = true
      out.push({ type: 'text-delta', text })
    }
  }

  const handleBlockStop = (event: WireEvent, out: ProviderEvent[]) => {
    const index = event.index ?? -1
    const tool = tools.get(index)
    if (!tool) return
    tools.delete(index)
    out.push(parseToolInput(tool))
    passedOn = true
  }

  const readUsage = (from: WireUsage | undefined, start: boolean) => {
    if (!from) return
    if (typeof from.input_tokens === 'number') usage.inputTokens = from.input_tokens
    if (typeof from.output_tokens === 'number') usage.outputTokens = from.output_tokens
    if (start && typeof from.cache_read_input_tokens === 'number')
      usage.cachedInputTokens = from.cache_read_input_tokens
  }

  const handle = (event: WireEvent, out: ProviderEvent[]) => {
    switch (event.type) {
      case 'content_block_delta':
        return handleDelta(event, out)
      case 'message_start':
        return readUsage(event.message?.usage, true)
      case 'content_block_start':
        return handleBlockStart(event, out)
      case 'content_block_stop':
        return handleBlockStop(event, out)
      case 'message_delta': {
        const reason = readWireText(event.delta?.stop_reason, 'a message_delta', 'delta.stop_reason')
        if (reason) stopReason = lookUpOwn(stopReasons, reason) ?? 'other'
        return readUsage(event.usage, false)
      }
      case 'message_stop':
        stopped = true
    }
  }

  return {
    get stopped() {
      return stopped
    },
    push(sse, out) {
      // As the SDK: only named events count, and a keep-alive `ping` carries nothing.
      const name = sse.event
      if (name === undefined || name === 'ping') return
      if (name === 'error') throw convertStreamError(sse.data, passedOn)
      if (!sse.data) return
      // Most events of a reply: their text is read without building the event's objects.
      if (name === 'content_block_delta') {
        const text = readPlainTextDelta(sse.data)
        if (text !== undefined) {
          if (text) {
            passedOn = true
            out.push({ type: 'text-delta', text })
          }
          return
        }
      }
      let event: unknown
      try {
        event = JSON.parse(sse.data)
      } catch {
        throw new UpstreamStreamError('upstream sent a data line that is not JSON')
      }
      if (event !== null && typeof event === 'object') handle(event as WireEvent, out)
    },
    end(out) {
      out.push({ type: 'usage', usage: { ...usage } })
      out.push({ type: 'finish', reason: stopReason ?? 'stop' })
    },
  }
}
