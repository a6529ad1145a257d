/**
 * Assembles OpenAI-format streamed tool-call deltas into complete calls. Deltas are keyed by
 * `index`, because providers disagree on everything else: Qwen repeats `id: ""` on continuation
 * deltas, Ollama sends a whole call in one delta, Kimi (through a router) repeats `id` and `name`
 * with the full arguments, and DeepSeek sends bare argument fragments.
 */
import { UpstreamStreamError } from '../shared/errors.js'
import { readWireText } from './read-wire-text.js'
import type { ProviderEvent } from './types.js'

export interface ToolCallDelta {
  index?: number
  id?: string | null
  type?: string | null
  function?: { name?: string | null; arguments?: string | null } | null
}

type ToolCallEvent = Extract<ProviderEvent, { type: 'tool-call' }>

interface PendingCall {
  id: string
  name: string
  arguments: string
}

export interface ToolCallAccumulator {
  push(delta: ToolCallDelta, position: number): void
  /** Completed calls in index order; the accumulator is empty afterwards. */
  drain(): ToolCallEvent[]
  readonly size: number
}

function isCompleteJson(text: string): boolean {
  if (text.length === 0) return false
  try {
    JSON.parse(text)
    return true
  } catch {
    return false
  }
}

export function createToolCallAccumulator(): ToolCallAccumulator {
  const calls = new Map<number, PendingCall>()
  const finished: PendingCall[] = []

  return {
    get size() {
      return calls.size + finished.length
    },
    push(delta, position) {
      if (delta === null || typeof delta !== 'object')
        throw new UpstreamStreamError(
          `upstream sent a tool call delta (tool_calls[${position}]) that is not an object`,
        )
      const index = typeof delta.index === 'number' ? delta.index : position
      const call = `a tool call delta (tool_calls[${position}])`
      const id = readWireText(delta.id, call, 'id') ?? ''
      const fields = delta.function
      if (fields !== undefined && fields !== null && typeof fields !== 'object')
        throw new UpstreamStreamError(`upstream sent ${call} whose function is not an object`)
      const name = readWireText(fields?.name, call, 'function.name') ?? ''
      const fragment = readWireText(fields?.arguments, call, 'function.arguments') ?? ''
      const current = calls.get(index)
      if (!current) {
        calls.set(index, { id, name, arguments: fragment })
        return
      }
      // Old servers put every call at index 0: a new non-empty id there starts the next call.
      if (id && current.id && id !== current.id) {
        finished.push(current)
        calls.set(index, { id, name, arguments: fragment })
        return
      }
      if (!current.id && id) current.id = id
      if (!current.name && name) current.name = name
      // A delta that repeats the call header and carries complete arguments restates the whole call;
      // appending would duplicate them once the arguments so far already form a whole JSON value.
      if ((id || name) && fragment && isCompleteJson(current.arguments) && isCompleteJson(fragment)) {
        current.arguments = fragment
        return
      }
      current.arguments += fragment
    },
    drain() {
      const all = [...finished, ...[...calls.entries()].sort((a, b) => a[0] - b[0]).map(([, call]) => call)]
      calls.clear()
      finished.length = 0
      return all.map((call, position) => toEvent(call, position))
    },
  }
}

function toEvent(call: PendingCall, position: number): ToolCallEvent {
  if (!call.name) throw new UpstreamStreamError('upstream sent a tool call without a function name')
  const rawArguments = call.arguments.trim() === '' ? '{}' : call.arguments
  let parsed: unknown
  try {
    parsed = JSON.parse(rawArguments)
  } catch {
    throw new UpstreamStreamError(
      `upstream sent tool call "${call.name}" with arguments that are not JSON: ${rawArguments.slice(0, 120)}`,
    )
  }
  return {
    type: 'tool-call',
    id: call.id || `call_${position}`,
    name: call.name,
    arguments: parsed,
    rawArguments,
  }
}
