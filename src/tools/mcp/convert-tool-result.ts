/**
 * What an MCP tool answered, in the form the model reads: the text parts as text, structured
 * content as JSON, other parts described. An `isError` answer becomes a thrown error, which the tool
 * registry hands to the model as an error result. Results over the size cap are cut with a note.
 */

export interface McpToolAnswer {
  content?: unknown
  structuredContent?: unknown
  isError?: unknown
  toolResult?: unknown
}

export interface ConvertToolResultOptions {
  maxChars: number
}

export class McpToolError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'McpToolError'
  }
}

/** The model's view of one answer; throws `McpToolError` for an `isError` answer. */
export function convertToolResult(answer: McpToolAnswer, options: ConvertToolResultOptions): unknown {
  const text = renderAnswer(answer)
  const cut = cutToSize(text, options.maxChars)
  if (answer.isError === true) throw new McpToolError(cut || 'the tool reported an error')
  return cut
}

function renderAnswer(answer: McpToolAnswer): string {
  if (answer.structuredContent !== undefined && answer.structuredContent !== null) {
    return JSON.stringify(answer.structuredContent)
  }
  // Servers of the protocol's first version answer `{toolResult}`.
  if (!Array.isArray(answer.content)) return JSON.stringify(answer.toolResult ?? null)
  const parts: string[] = []
  for (const item of answer.content as Record<string, unknown>[]) {
    if (item?.type === 'text' && typeof item.text === 'string') parts.push(item.text)
    else if (item?.type === 'resource' && isRecord(item.resource) && typeof item.resource.text === 'string')
      parts.push(item.resource.text)
    else if (item?.type === 'resource_link') parts.push(`[resource ${String(item.uri)}]`)
    else if (item?.type === 'image' || item?.type === 'audio')
      parts.push(`[${item.type} ${String(item.mimeType ?? '')} not shown]`)
    else parts.push(JSON.stringify(item))
  }
  return parts.join('\n')
}

function cutToSize(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text
  return `${text.slice(0, maxChars)}\n[result cut: ${text.length} characters, only the first ${maxChars} shown]`
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object'
}
