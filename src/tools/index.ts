/** `charpipe/tools`: the tool registry, MCP tools, tool results and the prompt form of tool calls. */
export { addToolPrompt } from './add-tool-prompt.js'
export { createMcpTools, type McpTools } from './mcp/create-mcp-tools.js'
export { parseToolCallText, renderToolPrompt } from './tool-call-text.js'
export { createToolRegistry, type ToolRegistry } from './tool-registry.js'
export {
  createToolResultContent,
  isToolResultContent,
  type ToolResultContent,
} from './tool-result-content.js'
export type * from './types.js'
