/**
 * A LangChain tool (`StructuredTool`, `tool()`, `DynamicStructuredTool`, `DynamicTool`) as a charpipe
 * `Tool`, so a character can use LangChain's tool ecosystem without rewriting anything. The tool
 * keeps its own argument validation (LangChain's `invoke` checks the schema and throws, which the
 * tool registry hands back to the model as the result) and gets the turn's abort signal.
 */
import type { StructuredToolInterface } from '@langchain/core/tools'
import { convertToOpenAIFunction } from '@langchain/core/utils/function_calling'
import { BadRequestError } from '../../shared/errors.js'
import type { Tool } from '../../tools/types.js'

function readOutput(output: unknown): unknown {
  // A tool called with a ToolCall answers with a ToolMessage; its content is the result.
  const value =
    output && typeof output === 'object' && 'content' in output && 'tool_call_id' in output
      ? (output as { content: unknown }).content
      : output
  if (typeof value !== 'string') return value ?? null
  // LangChain tools return strings, often JSON: parsed, the model sees the object, not quoted JSON.
  const trimmed = value.trim()
  if (!trimmed.startsWith('{') && !trimmed.startsWith('[')) return value
  try {
    return JSON.parse(trimmed)
  } catch {
    return value
  }
}

export function toCharpipeTool(langChainTool: StructuredToolInterface): Tool {
  if (!langChainTool || typeof langChainTool.invoke !== 'function' || typeof langChainTool.name !== 'string')
    throw new BadRequestError('toCharpipeTool needs a LangChain tool (StructuredTool or tool())')
  const definition = convertToOpenAIFunction(langChainTool)
  return {
    name: langChainTool.name,
    description: langChainTool.description ?? '',
    parameters: (definition.parameters as Record<string, unknown>) ?? { type: 'object', properties: {} },
    async execute(args, options) {
      const output = await langChainTool.invoke(args, {
        signal: options.signal,
        metadata: { session: options.session, turn: options.turn },
      })
      return readOutput(output)
    },
  }
}
