/**
 * Converts our `ChatMessage`s to the Anthropic Messages format. System messages go to the separate
 * `system` parameter (Anthropic has no system role); assistant tool calls become `tool_use` blocks;
 * tool messages become `tool_result` blocks in a user turn (with image blocks when a tool result
 * has images). Consecutive turns of the same role are merged, because the API wants user and
 * assistant to alternate.
 */
import { BadRequestError } from '../shared/errors.js'
import type { ChatMessage, ContentPart, ToolDefinition } from '../shared/messages.js'
import { describeFilePart, requireImageUrl } from './convert-to-openai-messages.js'
import type { ToolChoice } from './types.js'

export type AnthropicBlock =
  | { type: 'text'; text: string }
  | {
      type: 'image'
      source: { type: 'base64'; media_type: string; data: string } | { type: 'url'; url: string }
    }
  | { type: 'tool_use'; id: string; name: string; input: unknown }
  | { type: 'tool_result'; tool_use_id: string; content: string | AnthropicResultBlock[] }

/** What a `tool_result` block may hold besides plain text: text and image blocks. */
export type AnthropicResultBlock = Extract<AnthropicBlock, { type: 'text' | 'image' }>

/** A block marked as the end of a cached prefix. */
export type CacheControl = { cache_control?: { type: 'ephemeral' } }

export interface AnthropicMessage {
  role: 'user' | 'assistant'
  content: (AnthropicBlock & CacheControl)[]
}

export interface ConvertToAnthropicMessagesResult {
  /** Every system message, joined by blank lines; empty when there were none. */
  system: string
  messages: AnthropicMessage[]
}

const dataUriPattern = /^data:([^;,]+)(?:;[^,]*)?;base64,(.*)$/s

function convertImage(part: Extract<ContentPart, { type: 'image' }>, position: number): AnthropicBlock {
  const url = requireImageUrl(part, position)
  const match = dataUriPattern.exec(url)
  if (match) return { type: 'image', source: { type: 'base64', media_type: match[1]!, data: match[2]! } }
  if (url.startsWith('data:')) {
    throw new BadRequestError(`message ${position}: an image data URI must be base64-encoded`)
  }
  return { type: 'image', source: { type: 'url', url } }
}

function convertContent(content: ChatMessage['content'], position: number): AnthropicBlock[] {
  if (typeof content === 'string') return content ? [{ type: 'text', text: content }] : []
  const blocks: AnthropicBlock[] = []
  for (const part of content) {
    if (part.type === 'text') {
      if (part.text) blocks.push({ type: 'text', text: part.text })
    } else if (part.type === 'image') blocks.push(convertImage(part, position))
    else blocks.push({ type: 'text', text: describeFilePart(part) })
  }
  return blocks
}

function hasImage(content: ChatMessage['content']): boolean {
  return typeof content !== 'string' && content.some((part) => part.type === 'image')
}

function textOf(content: ChatMessage['content']): string {
  if (typeof content === 'string') return content
  return content.map((part) => (part.type === 'text' ? part.text : '')).join('')
}

export function convertToAnthropicMessages(messages: ChatMessage[]): ConvertToAnthropicMessagesResult {
  const system: string[] = []
  const result: AnthropicMessage[] = []
  const append = (role: 'user' | 'assistant', blocks: AnthropicBlock[]) => {
    if (blocks.length === 0) return
    const last = result[result.length - 1]
    if (last && last.role === role) last.content.push(...blocks)
    else result.push({ role, content: blocks })
  }
  messages.forEach((message, position) => {
    switch (message.role) {
      case 'system': {
        const text = textOf(message.content)
        // Before the first turn it is the system prompt; later (a depth injection) it stays in place
        // as a user-side note, since moving it to the top would change what it means.
        if (result.length === 0) system.push(text)
        else append('user', [{ type: 'text', text }])
        return
      }
      case 'user':
        append('user', convertContent(message.content, position))
        return
      case 'assistant': {
        const blocks = convertContent(message.content, position)
        for (const call of message.toolCalls ?? []) {
          const input =
            typeof call.arguments === 'string' ? JSON.parse(call.arguments || '{}') : (call.arguments ?? {})
          blocks.push({ type: 'tool_use', id: call.id, name: call.name, input })
        }
        append('assistant', blocks)
        return
      }
      case 'tool':
        if (!message.toolCallId)
          throw new BadRequestError(`message ${position}: a tool message needs toolCallId`)
        append('user', [
          {
            type: 'tool_result',
            tool_use_id: message.toolCallId,
            content: hasImage(message.content)
              ? (convertContent(message.content, position) as AnthropicResultBlock[])
              : textOf(message.content),
          },
        ])
        return
      default:
        throw new BadRequestError(
          `message ${position}: unknown role "${String((message as ChatMessage).role)}"`,
        )
    }
  })
  return { system: system.filter(Boolean).join('\n\n'), messages: result }
}

export function convertToAnthropicToolChoice(
  choice: ToolChoice,
): { type: 'auto' } | { type: 'any' } | { type: 'tool'; name: string } {
  if (choice === 'auto') return { type: 'auto' }
  if (choice === 'required') return { type: 'any' }
  return { type: 'tool', name: choice.name }
}

export function convertToAnthropicTools(tools: ToolDefinition[]) {
  return tools.map((tool) => ({
    name: tool.name,
    description: tool.description,
    input_schema: tool.parameters,
  }))
}

/**
 * Anthropic caches a prompt prefix only up to a block marked with `cache_control` (at most four
 * marks). Two marks cover a conversation: the end of the system prompt (persona, format rules) and
 * the end of the history, the last message before the new input. The next turn's request repeats
 * both, so it reads them from the cache; what follows (memories placed before the input, the input)
 * is paid in full.
 */
export function placeCacheBreakpoints(converted: ConvertToAnthropicMessagesResult): {
  system: (AnthropicBlock & CacheControl)[] | undefined
  messages: AnthropicMessage[]
} {
  const mark = { type: 'ephemeral' as const }
  const system = converted.system
    ? [{ type: 'text' as const, text: converted.system, cache_control: mark }]
    : undefined
  const messages = converted.messages.map((message) => ({ ...message, content: [...message.content] }))
  const historyEnd = messages.length >= 2 ? messages[messages.length - 2] : undefined
  const lastBlock = historyEnd?.content.at(-1)
  if (historyEnd && lastBlock)
    historyEnd.content[historyEnd.content.length - 1] = { ...lastBlock, cache_control: mark }
  return { system, messages }
}
