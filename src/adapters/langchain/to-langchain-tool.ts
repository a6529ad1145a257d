/**
 * A charpipe `Tool` as a LangChain tool (the JSON Schema of its arguments as the tool's schema), for
 * LangChain agents that should share a character's tools. The call's abort signal reaches `execute`;
 * a result that is not a string is sent as JSON text, the form tool messages carry.
 */
import { type DynamicStructuredTool, tool } from '@langchain/core/tools'
import type { Tool } from '../../tools/types.js'

export interface ToLangChainToolOptions {
  /** Passed to `execute` as the session. @default 'langchain' */
  session?: string
  /** Passed to `execute` as the turn; @default the LangChain run id, else 'langchain' */
  turn?: string
}

export function toLangChainTool(
  charpipeTool: Tool,
  options: ToLangChainToolOptions = {},
): DynamicStructuredTool {
  return tool(
    async (args: Record<string, unknown>, config) => {
      const result = await charpipeTool.execute(args, {
        signal: config?.signal ?? new AbortController().signal,
        session: options.session ?? 'langchain',
        turn: options.turn ?? config?.runId ?? 'langchain',
      })
      return typeof result === 'string' ? result : JSON.stringify(result ?? null)
    },
    {
      name: charpipeTool.name,
      description: charpipeTool.description,
      schema: charpipeTool.parameters as Record<string, unknown> & { type: 'object' },
    },
  ) as DynamicStructuredTool
}
