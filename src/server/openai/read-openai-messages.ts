/**
 * What an OpenAI chat request says, as a turn: the last user message is the input (its text parts
 * joined, its image parts as images). A request of that one message is a client that lets the
 * server keep the conversation; anything more (a system or developer message, earlier turns) is a
 * client that keeps its own, and comes back as `clientPrompt`: the system messages joined, and the
 * user and assistant messages before the input, as text. Tool traffic (assistant `tool_calls`,
 * `tool` results) is the client's own business and stays out, unless the request offers its own
 * tools (`withTools`): then its calls and results go to the model too, those after the input as the
 * turn's tool rounds.
 */
import type { ClientPrompt, ClientPromptMessage } from '../../context/types.js'
import type { GenerateInput } from '../../engine/types.js'
import type { OpenAICompletionBody } from '../request-schemas.js'

type CompletionMessage = OpenAICompletionBody['messages'][number]

export interface OpenAITurn {
  input: Pick<GenerateInput, 'text' | 'images'>
  /** Present when the client sent its own system prompt or history. */
  clientPrompt?: ClientPrompt
}

export interface ReadOpenAIMessagesOptions {
  /** The request offers tools of its own: its tool calls and results are kept. */
  withTools?: boolean
}

function readText(message: CompletionMessage): string {
  if (typeof message.content === 'string') return message.content
  return (message.content ?? [])
    .filter((part) => part.type === 'text' && typeof part.text === 'string')
    .map((part) => part.text)
    .join('\n')
}

function readImages(message: CompletionMessage): string[] {
  if (typeof message.content === 'string' || !message.content) return []
  return message.content
    .filter((part) => part.type === 'image_url' && part.image_url !== undefined)
    .map((part) => (typeof part.image_url === 'string' ? part.image_url : part.image_url!.url))
}

interface WireToolCall {
  id?: unknown
  function?: { name?: unknown; arguments?: unknown }
}

/** A client's tool message or an assistant's tool calls as the engine takes them; undefined for others. */
function readToolTraffic(message: CompletionMessage): ClientPromptMessage | undefined {
  if (message.role === 'tool' && typeof message.tool_call_id === 'string') {
    return { role: 'tool', content: readText(message), toolCallId: message.tool_call_id }
  }
  const calls = message.tool_calls
  if (message.role !== 'assistant' || !Array.isArray(calls) || calls.length === 0) return undefined
  const toolCalls = (calls as WireToolCall[]).map((call) => ({
    id: String(call.id ?? ''),
    name: String(call.function?.name ?? ''),
    arguments: parseArguments(call.function?.arguments),
  }))
  return { role: 'assistant', content: readText(message), toolCalls }
}

function parseArguments(value: unknown): unknown {
  if (typeof value !== 'string') return value ?? {}
  try {
    return JSON.parse(value)
  } catch {
    // The model's text as it wrote it: the model reads it back as it was.
    return value
  }
}

function readConversation(messages: readonly CompletionMessage[], withTools: boolean): ClientPromptMessage[] {
  const conversation: ClientPromptMessage[] = []
  for (const message of messages) {
    const tools = withTools ? readToolTraffic(message) : undefined
    if (tools) {
      conversation.push(tools)
      continue
    }
    if (message.role !== 'user' && message.role !== 'assistant') continue
    const text = readText(message)
    if (text.trim()) conversation.push({ role: message.role, content: text })
  }
  return conversation
}

/** The turn a request asks for; undefined when it has no user message. */
export function readOpenAIMessages(
  messages: readonly CompletionMessage[],
  options: ReadOpenAIMessagesOptions = {},
): OpenAITurn | undefined {
  const lastIndex = messages.findLastIndex((message) => message.role === 'user')
  if (lastIndex < 0) return undefined
  const last = messages[lastIndex]!
  const images = readImages(last)
  const input = images.length > 0 ? { text: readText(last), images } : { text: readText(last) }
  if (messages.length === 1) return { input }
  const withTools = options.withTools === true
  const system = messages
    .filter((message) => message.role === 'system' || message.role === 'developer')
    .map(readText)
    .filter((text) => text.trim())
    .join('\n\n')
  const history = readConversation(messages.slice(0, lastIndex), withTools)
  const toolRounds = withTools
    ? messages.slice(lastIndex + 1).flatMap((message) => readToolTraffic(message) ?? [])
    : []
  return {
    input,
    clientPrompt: { ...(system ? { system } : {}), history, ...(toolRounds.length ? { toolRounds } : {}) },
  }
}
