/**
 * A tool's answer as the text the model reads: a string is already text and goes as it is (an MCP
 * tool's JSON text is not encoded a second time); anything else is JSON.
 */
export function encodeToolResult(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value)
}
