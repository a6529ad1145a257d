/**
 * What an MCP tool answered, in the form the model reads: the text parts as text, structured
 * content as JSON, images as a `ToolResultContent` (the tool loop takes them the vision way), other
 * parts described. An `isError` answer becomes a thrown error, which the tool registry hands to the
 * model as an error result. Text over the size cap is cut with a note.
 */
import type { ImagePart, TextPart } from '../../shared/messages.js'
import { createToolResultContent } from '../tool-result-content.js'

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
  const parts = cutToSize(collectParts(answer), options.maxChars)
  const withImages = parts.some((part) => part.type === 'image')
  const content = withImages ? createToolResultContent(parts) : undefined
  const text = content ? content.toJSON() : parts.map((part) => (part as TextPart).text).join('\n')
  if (answer.isError === true) throw new McpToolError(text || 'the tool reported an error')
  return content ?? text
}

function collectParts(answer: McpToolAnswer): (TextPart | ImagePart)[] {
  const text = (value: string): TextPart => ({ type: 'text', text: value })
  if (answer.structuredContent !== undefined && answer.structuredContent !== null) {
    return [text(JSON.stringify(answer.structuredContent))]
  }
  // Servers of the protocol's first version answer `{toolResult}`.
  if (!Array.isArray(answer.content)) return [text(JSON.stringify(answer.toolResult ?? null))]
  const parts: (TextPart | ImagePart)[] = []
  for (const item of answer.content as Record<string, unknown>[]) {
    if (item?.type === 'text' && typeof item.text === 'string') parts.push(text(item.text))
    else if (item?.type === 'resource' && isRecord(item.resource) && typeof item.resource.text === 'string')
      parts.push(text(item.resource.text))
    else if (item?.type === 'resource_link') parts.push(text(`[resource ${String(item.uri)}]`))
    else if (isInlineImage(item))
      parts.push({
        type: 'image',
        mediaType: item.mimeType,
        url: `data:${item.mimeType};base64,${item.data}`,
      })
    else if (item?.type === 'image' || item?.type === 'audio')
      parts.push(text(`[${item.type} ${String(item.mimeType ?? '')} not shown]`))
    else parts.push(text(JSON.stringify(item)))
  }
  return parts
}

function isInlineImage(item: Record<string, unknown>): item is { mimeType: string; data: string } {
  return (
    item?.type === 'image' &&
    typeof item.mimeType === 'string' &&
    /^image\/[\w.+-]+$/i.test(item.mimeType) &&
    typeof item.data === 'string' &&
    item.data.length > 0
  )
}

/** Cuts the text parts to `maxChars` in all (images stay), with a note after the last kept text. */
function cutToSize(parts: (TextPart | ImagePart)[], maxChars: number): (TextPart | ImagePart)[] {
  let total = 0
  for (const part of parts) if (part.type === 'text') total += part.text.length
  if (total <= maxChars) return parts
  let budget = maxChars
  const cut: (TextPart | ImagePart)[] = []
  for (const part of parts) {
    if (part.type !== 'text') cut.push(part)
    else if (budget > 0) {
      cut.push({ type: 'text', text: part.text.slice(0, budget) })
      budget -= Math.min(budget, part.text.length)
    }
  }
  cut.push({ type: 'text', text: `[result cut: ${total} characters, only the first ${maxChars} shown]` })
  return cut
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object'
}
