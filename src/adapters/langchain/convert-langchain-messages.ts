/**
 * The one place where LangChain messages and charpipe's intermediate messages meet, both ways.
 *
 * LangChain → charpipe: system, human, ai (with `tool_calls`), tool and generic (`ChatMessage` with a
 * role) messages; content as a string or blocks: text, `image_url` (a URL or a data URI, as a string
 * or `{url}`) and the standard `image` block (`url`, or base64 `data` with its MIME type). For a model
 * without function calling (`nativeTools: false`) the tool exchange is rewritten the way charpipe's
 * own tool loop writes it: the assistant's call as the JSON text the prompt asked for, and the tool
 * results as one user message, since such a model knows neither `tool_calls` nor the `tool` role.
 *
 * charpipe → LangChain: the same roles back as LangChain message classes (images as `image_url`
 * blocks), and a provider's collected answer as an `AIMessageChunk` with `tool_calls` and `usage_metadata`.
 */
import {
  AIMessage,
  AIMessageChunk,
  type BaseMessage,
  HumanMessage,
  type MessageContent,
  SystemMessage,
  ToolMessage,
  type UsageMetadata,
} from '@langchain/core/messages'
import type { ChatResult } from '../../providers/collect-chat-result.js'
import { describeFilePart } from '../../providers/convert-to-openai-messages.js'
import type { Usage } from '../../providers/types.js'
import { BadRequestError } from '../../shared/errors.js'
import type { Language } from '../../shared/language/index.js'
import type { ChatMessage, ContentPart, ToolCall } from '../../shared/messages.js'
import { renderToolResultText } from '../../tools/tool-call-text.js'

export interface ConvertFromLangChainMessagesOptions {
  /** False: tool calls and results become text, as for a model without function calling. @default true */
  nativeTools?: boolean
  /** The language of tool results written as text (`nativeTools: false`). @default 'zh' */
  language?: Language
}

type ContentBlock = Record<string, unknown> & { type?: unknown }

function readImageBlock(block: ContentBlock, where: string): ContentPart {
  if (block.type === 'image_url') {
    const value = block.image_url
    const url = typeof value === 'string' ? value : (value as { url?: unknown } | undefined)?.url
    if (typeof url !== 'string' || !url) throw new BadRequestError(`${where}: image_url has no url`)
    return { type: 'image', url }
  }
  const mediaType = (block.mimeType ?? block.mime_type) as string | undefined
  if (typeof block.url === 'string' && block.url) return { type: 'image', url: block.url, mediaType }
  if (typeof block.data === 'string' && block.data) {
    if (!mediaType) throw new BadRequestError(`${where}: a base64 image block needs its mimeType`)
    return { type: 'image', url: `data:${mediaType};base64,${block.data}`, mediaType }
  }
  throw new BadRequestError(`${where}: an image block needs a url or base64 data`)
}

function readContent(content: MessageContent, where: string): string | ContentPart[] {
  if (typeof content === 'string') return content
  const parts: ContentPart[] = []
  for (const [index, raw] of (content as ContentBlock[]).entries()) {
    const block = raw as ContentBlock
    const at = `${where}.content[${index}]`
    if (block.type === 'text') parts.push({ type: 'text', text: String(block.text ?? '') })
    else if (block.type === 'image_url' || block.type === 'image') parts.push(readImageBlock(block, at))
    // Reasoning and provider-specific blocks are the model's own notes; they are not sent back.
    else if (block.type === 'reasoning' || block.type === 'thinking' || block.type === 'tool_use') continue
    else throw new BadRequestError(`${at}: content blocks of type "${String(block.type)}" are not supported`)
  }
  return parts
}

function readText(content: MessageContent, where: string): string {
  const read = readContent(content, where)
  if (typeof read === 'string') return read
  if (read.some((part) => part.type !== 'text'))
    throw new BadRequestError(`${where}: only text is allowed in this message`)
  return read.map((part) => (part as { text: string }).text).join('')
}

/** A tool result as the value the model sees: JSON text is parsed so it is not quoted twice. */
function readToolResult(content: MessageContent, where: string): unknown {
  const text = readText(content, where)
  try {
    return JSON.parse(text)
  } catch {
    return text
  }
}

function readToolCalls(message: AIMessage): ToolCall[] {
  return (message.tool_calls ?? []).map((call, index) => ({
    id: call.id ?? `call_${index}`,
    name: call.name,
    arguments: call.args ?? {},
  }))
}

/** The JSON text a model without function calling writes for its calls (see `renderToolPrompt`). */
function renderCallText(calls: ToolCall[]): string {
  const plain = calls.map((call) => ({ name: call.name, arguments: call.arguments }))
  return JSON.stringify(plain.length === 1 ? { tool_call: plain[0] } : { tool_calls: plain })
}

function roleOf(message: BaseMessage): string {
  if (message.type === 'generic') return String((message as BaseMessage & { role?: string }).role)
  return message.type
}

/** LangChain messages → charpipe messages, ready for a provider request. */
export function convertFromLangChainMessages(
  messages: readonly BaseMessage[],
  options: ConvertFromLangChainMessagesOptions = {},
): ChatMessage[] {
  const nativeTools = options.nativeTools ?? true
  const converted: ChatMessage[] = []
  const callNames = new Map<string, string>()
  // Results of one round go back together, as one user message (as charpipe's own loop does).
  let resultsMessage: ChatMessage | undefined
  for (const [index, message] of messages.entries()) {
    const where = `messages[${index}]`
    const role = roleOf(message)
    if (role !== 'tool') resultsMessage = undefined
    if (role === 'system' || role === 'developer') {
      converted.push({ role: 'system', content: readText(message.content, where) })
    } else if (role === 'human' || role === 'user') {
      converted.push({ role: 'user', content: readContent(message.content, where) })
    } else if (role === 'ai' || role === 'assistant') {
      const calls = message.type === 'ai' ? readToolCalls(message as AIMessage) : []
      for (const call of calls) callNames.set(call.id, call.name)
      const text = readText(message.content, where)
      if (calls.length === 0) converted.push({ role: 'assistant', content: text })
      else if (nativeTools) converted.push({ role: 'assistant', content: text, toolCalls: calls })
      else
        converted.push({
          role: 'assistant',
          content: text ? `${text}\n${renderCallText(calls)}` : renderCallText(calls),
        })
    } else if (role === 'tool') {
      const tool = message as ToolMessage
      if (!tool.tool_call_id) throw new BadRequestError(`${where}: a tool message needs tool_call_id`)
      if (nativeTools) {
        converted.push({
          role: 'tool',
          content: readText(tool.content, where),
          toolCallId: tool.tool_call_id,
        })
        continue
      }
      const name = tool.name ?? callNames.get(tool.tool_call_id) ?? 'tool'
      const line = renderToolResultText(
        { id: tool.tool_call_id, name, arguments: {} },
        readToolResult(tool.content, where),
        options.language,
      )
      if (resultsMessage) resultsMessage.content = `${resultsMessage.content}\n${line}`
      else {
        resultsMessage = { role: 'user', content: line }
        converted.push(resultsMessage)
      }
    } else {
      throw new BadRequestError(`${where}: messages of type "${role}" are not supported`)
    }
  }
  return converted
}

function convertContentToLangChain(content: ChatMessage['content']): MessageContent {
  if (typeof content === 'string') return content
  return content.map((part) => {
    if (part.type === 'text') return { type: 'text' as const, text: part.text }
    if (part.type === 'image') {
      if (!part.url) throw new BadRequestError(`image "${part.assetRef ?? ''}" has no url`)
      return { type: 'image_url' as const, image_url: { url: part.url } }
    }
    return { type: 'text' as const, text: describeFilePart(part) }
  })
}

function textOf(content: ChatMessage['content']): string {
  const converted = convertContentToLangChain(content)
  if (typeof converted === 'string') return converted
  return converted.map((block) => ('text' in block ? String(block.text) : '')).join('')
}

/** charpipe messages → LangChain messages. */
export function convertToLangChainMessages(messages: readonly ChatMessage[]): BaseMessage[] {
  return messages.map((message, index) => {
    switch (message.role) {
      case 'system':
        return new SystemMessage({ content: textOf(message.content) })
      case 'user':
        return new HumanMessage({ content: convertContentToLangChain(message.content) })
      case 'assistant':
        return new AIMessage({
          content: textOf(message.content),
          tool_calls: (message.toolCalls ?? []).map((call) => ({
            id: call.id,
            name: call.name,
            args: (call.arguments ?? {}) as Record<string, unknown>,
            type: 'tool_call' as const,
          })),
        })
      case 'tool':
        if (!message.toolCallId)
          throw new BadRequestError(`messages[${index}]: a tool message needs toolCallId`)
        return new ToolMessage({ content: textOf(message.content), tool_call_id: message.toolCallId })
      default:
        throw new BadRequestError(`messages[${index}]: unknown role "${String(message.role)}"`)
    }
  })
}

/** charpipe's usage report in LangChain's shape. */
export function convertUsageToLangChain(usage: Usage): UsageMetadata {
  return {
    input_tokens: usage.inputTokens,
    output_tokens: usage.outputTokens,
    total_tokens: usage.inputTokens + usage.outputTokens,
    ...(usage.cachedInputTokens !== undefined
      ? { input_token_details: { cache_read: usage.cachedInputTokens } }
      : {}),
    ...(usage.reasoningTokens !== undefined
      ? { output_token_details: { reasoning: usage.reasoningTokens } }
      : {}),
  }
}

/**
 * A provider's collected answer as the message a LangChain chat model returns: an `AIMessageChunk`
 * (the model's declared output type, which `withStructuredOutput` checks for), with `tool_calls`.
 */
export function convertChatResultToAIMessageChunk(result: ChatResult, modelName: string): AIMessageChunk {
  return new AIMessageChunk({
    content: result.text,
    tool_calls: result.toolCalls.map((call) => ({
      id: call.id,
      name: call.name,
      args: (call.arguments ?? {}) as Record<string, unknown>,
      type: 'tool_call' as const,
    })),
    ...(result.usage ? { usage_metadata: convertUsageToLangChain(result.usage) } : {}),
    ...(result.reasoning ? { additional_kwargs: { reasoning_content: result.reasoning } } : {}),
    response_metadata: {
      model_name: modelName,
      ...(result.finishReason ? { finish_reason: result.finishReason } : {}),
    },
  })
}
