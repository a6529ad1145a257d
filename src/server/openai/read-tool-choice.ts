/**
 * The `tool_choice` of an OpenAI-compatible request (`/v1/chat/completions`, `/v1/responses`), one
 * reader for both: which of the client's tools the model is offered, and whether it must call one.
 * `auto` (the default) offers them all; `none` offers none; `required` asks for a call of any tool;
 * a named function (`{type: "function", name}` as the Responses API writes it, `{type: "function",
 * function: {name}}` as Chat Completions does) asks for a call of that one; `allowed_tools` offers
 * only the listed ones, with its `mode`. A choice the request's tools cannot meet is refused, so a
 * client never learns only from the answer that it was not followed.
 */
import type { ToolDefinition } from '../../shared/messages.js'

/** What the turn asks of the model: a call of any tool, or of the named one. */
export type RequiredToolChoice = 'required' | { name: string }

/** The choice as a response resource echoes it (Open Responses `tool_choice`). */
export type ToolChoiceEcho =
  | 'none'
  | 'auto'
  | 'required'
  | { type: 'function'; name: string }
  | { type: 'allowed_tools'; tools: { type: 'function'; name: string }[]; mode: 'none' | 'auto' | 'required' }

export type ReadToolChoiceResult =
  | { ok: true; tools: ToolDefinition[]; required?: RequiredToolChoice; echo: ToolChoiceEcho }
  | { ok: false; message: string }

type WireToolChoice = string | ({ type: string } & Record<string, unknown>)

const modes = new Set(['none', 'auto', 'required'])

/** The function name of a named choice, in either wire form; undefined when it names none. */
function readFunctionName(choice: Record<string, unknown>): string | undefined {
  if (typeof choice.name === 'string') return choice.name
  const inner = choice.function as { name?: unknown } | undefined
  return typeof inner?.name === 'string' ? inner.name : undefined
}

function readMode(
  tools: ToolDefinition[],
  mode: 'none' | 'auto' | 'required',
  echo: ToolChoiceEcho,
): ReadToolChoiceResult {
  if (mode === 'none') return { ok: true, tools: [], echo }
  if (mode === 'auto') return { ok: true, tools, echo }
  if (tools.length === 0)
    return { ok: false, message: 'tool_choice: "required" needs at least one tool in tools' }
  return { ok: true, tools, required: 'required', echo }
}

function readAllowedTools(tools: ToolDefinition[], choice: Record<string, unknown>): ReadToolChoiceResult {
  const listed = Array.isArray(choice.tools) ? (choice.tools as Record<string, unknown>[]) : []
  const names: string[] = []
  for (const [index, entry] of listed.entries()) {
    const name = entry && typeof entry === 'object' ? readFunctionName(entry) : undefined
    if (!name) return { ok: false, message: `tool_choice.tools.${index}: a function tool {type, name}` }
    if (!tools.some((tool) => tool.name === name))
      return { ok: false, message: `tool_choice.tools.${index}: no function named ${name} in tools` }
    names.push(name)
  }
  if (names.length === 0) return { ok: false, message: 'tool_choice.tools: name at least one tool' }
  const mode = choice.mode ?? 'auto'
  if (typeof mode !== 'string' || !modes.has(mode))
    return { ok: false, message: 'tool_choice.mode: one of none, auto, required' }
  const allowed = tools.filter((tool) => names.includes(tool.name))
  const echo: ToolChoiceEcho = {
    type: 'allowed_tools',
    tools: names.map((name) => ({ type: 'function', name })),
    mode: mode as 'none' | 'auto' | 'required',
  }
  return readMode(allowed, mode as 'none' | 'auto' | 'required', echo)
}

/** The tools offered and the call required by `tool_choice`, or a message naming what is wrong. */
export function readToolChoice(
  tools: ToolDefinition[],
  choice: WireToolChoice | null | undefined,
): ReadToolChoiceResult {
  if (choice === undefined || choice === null) return { ok: true, tools, echo: 'auto' }
  if (typeof choice === 'string') {
    if (!modes.has(choice)) return { ok: false, message: 'tool_choice: one of none, auto, required' }
    return readMode(tools, choice as 'none' | 'auto' | 'required', choice as ToolChoiceEcho)
  }
  if (choice.type === 'allowed_tools') return readAllowedTools(tools, choice)
  if (choice.type !== 'function')
    return {
      ok: false,
      message: `tool_choice: type ${choice.type} is not supported (function, allowed_tools)`,
    }
  const name = readFunctionName(choice)
  if (!name) return { ok: false, message: "tool_choice: a function choice needs the function's name" }
  if (!tools.some((tool) => tool.name === name))
    return { ok: false, message: `tool_choice: no function named ${name} in tools` }
  return { ok: true, tools, required: { name }, echo: { type: 'function', name } }
}
