/**
 * The `pipeline` and `tools` sections: which context processors run and which MCP servers
 * the character may call tools from.
 */
import * as z from 'zod'
import { processorMapSchema } from './fields.js'

export const pipelineSchema = z
  .strictObject({
    processors: processorMapSchema.describe(
      'Per processor id: {enabled, priority, ...options}. Replaces the llm.processors entry of the same id.',
    ),
  })
  .describe('The context pipeline.')

const mcpServerCommonFields = {
  include: z
    .array(z.string())
    .default([])
    .describe('Only these tools of the server (its own names); empty: all of them.'),
  exclude: z.array(z.string()).default([]).describe('Tools of the server left out (its own names).'),
  prefix: z
    .string()
    .default('')
    .describe('Put before each tool name, e.g. "fs_"; separates servers that offer one name.'),
  timeout_ms: z
    .int()
    .positive()
    .default(30000)
    .describe(
      'Longest wait for connecting, for listing the tools (every page together) and for one tool call; a turn waits for a connecting server at most this long.',
    ),
  max_list_pages: z
    .int()
    .positive()
    .default(100)
    .describe('A tools/list with more pages is refused (the server is marked failed, naming this limit).'),
  max_tools: z
    .int()
    .positive()
    .default(1000)
    .describe('A server that lists more tools is refused (marked failed, naming this limit).'),
  max_schema_chars: z
    .int()
    .positive()
    .default(100000)
    .describe(
      "Largest tool a server may list: its name, description and schemas as JSON characters; a larger one refuses the server's listing.",
    ),
  max_result_chars: z
    .int()
    .positive()
    .default(20000)
    .describe('Longer tool results are cut to this many characters, with a note for the model.'),
}

export const mcpStdioServerSchema = z
  .strictObject({
    type: z.literal('stdio').optional().describe('As MCP servers document it; stdio is implied by command.'),
    command: z.string().min(1).describe('Program started for the server (config file only).'),
    args: z.array(z.string()).default([]).describe('Its arguments (config file only).'),
    env: z
      .record(z.string(), z.string())
      .default({})
      .describe('Extra environment variables (config file only; values are secrets).'),
    cwd: z.string().optional().describe('Working folder (config file only).'),
    ...mcpServerCommonFields,
  })
  .describe('An MCP server run as a child process speaking over stdio.')

export const mcpRemoteServerSchema = z
  .strictObject({
    type: z
      .enum(['http', 'streamable-http', 'streamableHttp', 'sse'])
      .optional()
      .describe('As MCP servers document it; sse: connect over the older SSE transport only.'),
    url: z.url().describe('Streamable HTTP endpoint (older SSE servers are tried when it fails).'),
    headers: z
      .record(z.string(), z.string())
      .default({})
      .describe('Headers sent with every request, e.g. Authorization (values are secrets).'),
    ...mcpServerCommonFields,
  })
  .describe('A remote MCP server.')

export const mcpServerSchema = z.union([mcpStdioServerSchema, mcpRemoteServerSchema])

export const toolsSchema = z
  .strictObject({
    mcp_servers: z
      .record(z.string().regex(/^[A-Za-z0-9_.-]{1,64}$/), mcpServerSchema)
      .default({})
      .describe('MCP servers whose tools the character may call, by name (the mcpServers JSON shape).'),
  })
  .describe('Tools the character may call.')
