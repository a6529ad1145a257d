/**
 * Tools as LangChain binds them (a `StructuredTool` or `tool()` with a zod or JSON schema, a
 * `{name, description, schema}` object, an OpenAI tool or function definition) → charpipe's
 * `ToolDefinition`. LangChain's own `convertToOpenAIFunction` turns schemas into JSON Schema.
 */
import type { BindToolsInput } from '@langchain/core/language_models/chat_models'
import { convertToOpenAIFunction, isLangChainTool } from '@langchain/core/utils/function_calling'
import { BadRequestError } from '../../shared/errors.js'
import type { ToolDefinition } from '../../shared/messages.js'

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function readFunctionDefinition(value: Record<string, unknown>, where: string): ToolDefinition {
  if (typeof value.name !== 'string' || !value.name) throw new BadRequestError(`${where} has no name`)
  const parameters = value.parameters ?? { type: 'object', properties: {} }
  if (!isRecord(parameters))
    throw new BadRequestError(`${where} (${value.name}): parameters must be a JSON Schema object`)
  return {
    name: value.name,
    description: typeof value.description === 'string' ? value.description : '',
    parameters,
  }
}

/** One bound tool as the providers take it; anything else is refused naming its position. */
export function convertToToolDefinition(tool: BindToolsInput, index = 0): ToolDefinition {
  const where = `tools[${index}]`
  if (isLangChainTool(tool)) {
    const definition = convertToOpenAIFunction(tool)
    return readFunctionDefinition(definition as unknown as Record<string, unknown>, where)
  }
  if (!isRecord(tool)) throw new BadRequestError(`${where} is not a tool`)
  if (tool.type === 'function' && isRecord(tool.function)) return readFunctionDefinition(tool.function, where)
  if (typeof tool.name === 'string' && (tool.parameters === undefined || isRecord(tool.parameters)))
    return readFunctionDefinition(tool, where)
  throw new BadRequestError(
    `${where} is not a LangChain tool, a {name, description, schema} object or an OpenAI function definition`,
  )
}

export function convertToToolDefinitions(tools: readonly BindToolsInput[] = []): ToolDefinition[] {
  return tools.map((tool, index) => convertToToolDefinition(tool, index))
}
