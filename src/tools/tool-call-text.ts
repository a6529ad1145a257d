/**
 * The fallback for models without native function calling (seed 004): tools are described in the
 * system prompt and the model answers a call with a JSON object
 * `{"tool_call": {"name": "…", "arguments": {…}}}` (or `{"tool_calls": [ … ]}`) instead of a reply.
 *
 * The detector decides from the first characters whether a step's output is such a call, so an
 * ordinary reply still streams to speech at once: only a prefix that could still become
 * `{"tool_call` is held back.
 */
import { type Language, readScaffoldingTexts } from '../shared/language/index.js'
import type { ToolCall, ToolDefinition } from '../shared/messages.js'

const callPrefix = '{"tool_call'
const fencePattern = /^```(?:json)?/

export type ToolCallTextState = 'undecided' | 'text' | 'call'

export interface ToolCallTextDetector {
  /** Feeds a text delta; returns the text that can go on to the reply parser now (possibly empty). */
  push(delta: string): string
  readonly state: ToolCallTextState
  /** Everything held back (the call's JSON, or an undecided prefix). */
  readonly heldText: string
}

function compact(text: string): string {
  return text.replace(/\s+/g, '').replace(fencePattern, '')
}

export function createToolCallTextDetector(): ToolCallTextDetector {
  let state: ToolCallTextState = 'undecided'
  let held = ''
  return {
    get state() {
      return state
    },
    get heldText() {
      return held
    },
    push(delta) {
      if (state === 'text') return delta
      held += delta
      if (state === 'call') return ''
      const seen = compact(held)
      // A fence that is still being written (`` ` ``, ` ``` `, ` ```js`) keeps us undecided.
      const fenceOpening = /^`{1,3}(j(s(on?)?)?)?$/.test(held.trim())
      if (seen.startsWith(callPrefix)) {
        state = 'call'
        return ''
      }
      if (fenceOpening || callPrefix.startsWith(seen)) return ''
      state = 'text'
      const released = held
      held = ''
      return released
    },
  }
}

function readArguments(value: unknown): unknown {
  if (typeof value !== 'string') return value ?? {}
  try {
    return JSON.parse(value)
  } catch {
    return value
  }
}

function readCall(value: unknown, index: number): ToolCall | undefined {
  if (!value || typeof value !== 'object') return undefined
  const record = value as Record<string, unknown>
  const name = record.name ?? record.tool
  if (typeof name !== 'string' || !name) return undefined
  const id = typeof record.id === 'string' && record.id ? record.id : `call_${index}`
  return { id, name, arguments: readArguments(record.arguments ?? record.args ?? record.parameters) }
}

/** Parses a call written as text; undefined when the text is not a well-formed call. */
export function parseToolCallText(text: string): ToolCall[] | undefined {
  const body = text
    .trim()
    .replace(fencePattern, '')
    .replace(/```\s*$/, '')
    .trim()
  let parsed: unknown
  try {
    parsed = JSON.parse(body)
  } catch {
    return undefined
  }
  if (!parsed || typeof parsed !== 'object') return undefined
  const record = parsed as Record<string, unknown>
  const raw = Array.isArray(record.tool_calls) ? record.tool_calls : [record.tool_call]
  const calls = raw.map(readCall)
  if (calls.length === 0 || calls.some((call) => call === undefined)) return undefined
  return calls as ToolCall[]
}

/** The system-prompt section that describes the tools and the call format, in `language`. */
export function renderToolPrompt(definitions: readonly ToolDefinition[], language: Language = 'zh'): string {
  const texts = readScaffoldingTexts(language).toolPrompt
  const list = definitions
    .map(
      (definition) =>
        `- ${definition.name}: ${definition.description}\n  ${texts.parameters}: ${JSON.stringify(definition.parameters)}`,
    )
    .join('\n')
  return [texts.title, ...texts.callFormat, list].join('\n')
}

/** How a tool result is handed back to a model without a `tool` role. */
export function renderToolResultText(call: ToolCall, result: unknown, language: Language = 'zh'): string {
  return `${readScaffoldingTexts(language).toolResult(call.name)} ${JSON.stringify(result)}`
}
