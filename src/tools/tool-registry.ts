/**
 * A small tool registry: checks names once, hands the definitions to the model and runs calls so
 * that nothing a tool does (unknown name, bad arguments, a throw) escapes as an exception: the
 * failure becomes the tool result and the model can react to it (seed 002's ReAct loop).
 */
import { BadRequestError } from '../shared/errors.js'
import type { ToolCall, ToolDefinition } from '../shared/messages.js'
import { isToolResultContent } from './tool-result-content.js'
import type { Tool, ToolExecuteOptions, ToolRunResult, ToolSource } from './types.js'

const toolNamePattern = /^[A-Za-z0-9_-]{1,64}$/

export interface ToolRegistry {
  readonly size: number
  get(name: string): Tool | undefined
  list(): Tool[]
  /** Definitions as the providers take them. */
  definitions(): ToolDefinition[]
  /** Runs one call; never throws (errors become `{error}` results). */
  run(call: ToolCall, options: ToolExecuteOptions): Promise<ToolRunResult>
  /** Waits for tool sources still fetching their tools (each within its own bound). */
  ready(signal: AbortSignal): Promise<void>
}

export interface CreateToolRegistryOptions {
  /** Sources whose tools join the fixed ones; a name already taken by a fixed tool is skipped. */
  sources?: () => readonly ToolSource[]
}

/**
 * Why a tool's result cannot go to the model and the clients, or undefined when it can: it is sent
 * as JSON (a BigInt or a cycle would throw later, out of the turn, instead of being the tool's
 * failure the model can react to).
 */
function findUnencodableResult(result: unknown): string | undefined {
  if (typeof result === 'string' || isToolResultContent(result)) return undefined
  try {
    JSON.stringify(result)
    return undefined
  } catch (error) {
    return `the tool returned a value that is not JSON: ${describeError(error)}`
  }
}

function describeError(error: unknown): string {
  if (error instanceof Error) return error.message || error.name
  return String(error)
}

/** Builds a registry; rejects duplicate or invalid names and missing `execute` with a clear error. */
export function createToolRegistry(
  tools: readonly Tool[] = [],
  options: CreateToolRegistryOptions = {},
): ToolRegistry {
  const fixed = new Map<string, Tool>()

  for (const [index, tool] of tools.entries()) {
    if (!tool || typeof tool !== 'object') throw new BadRequestError(`tools[${index}] is not an object`)
    if (typeof tool.name !== 'string' || !toolNamePattern.test(tool.name)) {
      throw new BadRequestError(
        `tools[${index}].name ${JSON.stringify(tool.name)} is invalid: use 1-64 letters, digits, _ or -`,
      )
    }
    if (typeof tool.execute !== 'function') {
      throw new BadRequestError(`tools[${index}] (${tool.name}) has no execute function`)
    }
    if (fixed.has(tool.name)) throw new BadRequestError(`tools: the name ${tool.name} is used twice`)
    fixed.set(tool.name, tool)
  }

  const current = (): Map<string, Tool> => {
    const sources = options.sources?.() ?? []
    if (sources.length === 0) return fixed
    const all = new Map(fixed)
    for (const source of sources) {
      for (const tool of source.list()) if (!all.has(tool.name)) all.set(tool.name, tool)
    }
    return all
  }

  return {
    get size() {
      return current().size
    },
    get: (name) => current().get(name),
    list: () => [...current().values()],
    async ready(signal) {
      await Promise.all((options.sources?.() ?? []).map((source) => source.ready(signal)))
    },
    definitions: () =>
      [...current().values()].map((tool) => ({
        name: tool.name,
        description: tool.description ?? '',
        parameters: tool.parameters ?? { type: 'object', properties: {} },
      })),
    async run(call, runOptions) {
      const byName = current()
      const tool = byName.get(call.name)
      const base = { id: call.id, name: call.name }
      if (!tool) {
        const known = [...byName.keys()].join(', ') || 'none'
        return { ...base, result: { error: `unknown tool ${call.name}; available: ${known}` }, isError: true }
      }
      const args = call.arguments ?? {}
      if (typeof args !== 'object' || Array.isArray(args)) {
        return { ...base, result: { error: 'arguments must be a JSON object' }, isError: true }
      }
      try {
        const result = await tool.execute(args as Record<string, unknown>, runOptions)
        const refused = findUnencodableResult(result)
        if (refused) return { ...base, result: { error: refused }, isError: true }
        return { ...base, result: result === undefined ? null : result, isError: false }
      } catch (error) {
        return { ...base, result: { error: describeError(error) }, isError: true }
      }
    },
  }
}
