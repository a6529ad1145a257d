/**
 * Converts our `ChatMessage`s and tools to the Chat Completions wire format. Text-only content is
 * sent as a plain string (several OpenAI-compatible servers reject part arrays without images);
 * images become `image_url` parts; other files, which the context pipeline did not turn into text,
 * are named in a short text note so the model knows something was attached. A `tool` message takes
 * text only, so the images of tool results follow the tool messages in one user message.
 */
import { BadRequestError } from '../shared/errors.js'
import type { ChatMessage, ContentPart, ToolDefinition } from '../shared/messages.js'
import type { ToolChoice } from './types.js'

export type OpenAIContentPart =
  | { type: 'text'; text: string }
  | { type: 'image_url'; image_url: { url: string } }

export type OpenAIMessage =
  | { role: 'system'; content: string }
  | { role: 'user'; content: string | OpenAIContentPart[] }
  | {
      role: 'assistant'
      content: string | null
      tool_calls?: { id: string; type: 'function'; function: { name: string; arguments: string } }[]
    }
  | { role: 'tool'; tool_call_id: string; content: string }

export interface OpenAITool {
  type: 'function'
  function: { name: string; description: string; parameters: Record<string, unknown> }
}

/** The note that stands for a file part a model cannot read directly. */
export function describeFilePart(part: Extract<ContentPart, { type: 'file' }>): string {
  const name = part.name ?? part.assetRef.split(/[\\/]/).pop() ?? part.assetRef
  return `[file: ${name}${part.mediaType ? ` (${part.mediaType})` : ''}]`
}

/** The URL of an image part, or a clear error when the asset resolver has not run on it. */
export function requireImageUrl(part: Extract<ContentPart, { type: 'image' }>, position: number): string {
  if (part.url) return part.url
  throw new BadRequestError(
    `message ${position}: image ${part.assetRef ? `"${part.assetRef}" ` : ''}has no url (resolve assets before calling the provider)`,
  )
}

function convertParts(parts: ContentPart[], position: number): OpenAIContentPart[] {
  return parts.map((part) => {
    if (part.type === 'text') return { type: 'text', text: part.text }
    if (part.type === 'image')
      return { type: 'image_url', image_url: { url: requireImageUrl(part, position) } }
    return { type: 'text', text: describeFilePart(part) }
  })
}

function flattenText(content: ChatMessage['content'], position: number): string {
  if (typeof content === 'string') return content
  return convertParts(content, position)
    .map((part) => (part.type === 'text' ? part.text : ''))
    .join('')
}

function convertUserContent(content: ChatMessage['content'], position: number): string | OpenAIContentPart[] {
  if (typeof content === 'string') return content
  const parts = convertParts(content, position)
  if (parts.every((part) => part.type === 'text'))
    return parts.map((part) => (part as { text: string }).text).join('')
  return parts
}

/** The images of tool results, which a `tool` message cannot carry. */
const toolImagesNote = 'Images from the tool results above:'

function convertMessage(message: ChatMessage, position: number): OpenAIMessage {
  switch (message.role) {
    case 'system':
      return { role: 'system', content: flattenText(message.content, position) }
    case 'user':
      return { role: 'user', content: convertUserContent(message.content, position) }
    case 'assistant': {
      const text = flattenText(message.content, position)
      if (!message.toolCalls?.length) return { role: 'assistant', content: text }
      return {
        role: 'assistant',
        content: text || null,
        tool_calls: message.toolCalls.map((call) => ({
          id: call.id,
          type: 'function',
          function: {
            name: call.name,
            arguments:
              typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments ?? {}),
          },
        })),
      }
    }
    case 'tool':
      if (!message.toolCallId)
        throw new BadRequestError(`message ${position}: a tool message needs toolCallId`)
      return {
        role: 'tool',
        tool_call_id: message.toolCallId,
        content: flattenText(message.content, position),
      }
    default:
      throw new BadRequestError(
        `message ${position}: unknown role "${String((message as ChatMessage).role)}"`,
      )
  }
}

export function convertToOpenAIMessages(messages: ChatMessage[]): OpenAIMessage[] {
  const converted: OpenAIMessage[] = []
  let toolImages: OpenAIContentPart[] = []
  const flushToolImages = () => {
    if (toolImages.length === 0) return
    converted.push({ role: 'user', content: [{ type: 'text', text: toolImagesNote }, ...toolImages] })
    toolImages = []
  }
  messages.forEach((message, position) => {
    // Tool messages answer the calls before them with nothing in between: images wait for the last.
    if (message.role !== 'tool') flushToolImages()
    converted.push(convertMessage(message, position))
    if (message.role === 'tool' && typeof message.content !== 'string') {
      for (const part of message.content)
        if (part.type === 'image')
          toolImages.push({ type: 'image_url', image_url: { url: requireImageUrl(part, position) } })
    }
  })
  flushToolImages()
  return converted
}

export function convertToOpenAITools(tools: ToolDefinition[]): OpenAITool[] {
  return tools.map((tool) => ({
    type: 'function',
    function: { name: tool.name, description: tool.description, parameters: tool.parameters },
  }))
}

export type OpenAIToolChoice = 'auto' | 'required' | { type: 'function'; function: { name: string } }

export function convertToOpenAIToolChoice(choice: ToolChoice): OpenAIToolChoice {
  return typeof choice === 'string' ? choice : { type: 'function', function: { name: choice.name } }
}
