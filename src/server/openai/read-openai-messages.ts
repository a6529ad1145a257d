/**
 * What an OpenAI chat completion request says, as a turn: the last user message is the input (its
 * text parts joined, its image parts as images). A request of that one message is a client that
 * lets the server keep the conversation; anything more (a system or developer message, earlier
 * turns) is a client that keeps its own, and comes back as `clientPrompt`: the system messages
 * joined, and the user and assistant messages before the input, as text. Tool calls and tool
 * results are the client's own business and stay out.
 */
import type { ClientPrompt } from '../../context/types.js'
import type { GenerateInput } from '../../engine/types.js'
import type { OpenAICompletionBody } from '../request-schemas.js'

type CompletionMessage = OpenAICompletionBody['messages'][number]

export interface OpenAITurn {
  input: Pick<GenerateInput, 'text' | 'images'>
  /** Present when the client sent its own system prompt or history. */
  clientPrompt?: ClientPrompt
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

/** The turn a request asks for; undefined when it has no user message. */
export function readOpenAIMessages(messages: readonly CompletionMessage[]): OpenAITurn | undefined {
  const lastIndex = messages.findLastIndex((message) => message.role === 'user')
  if (lastIndex < 0) return undefined
  const last = messages[lastIndex]!
  const images = readImages(last)
  const input = images.length > 0 ? { text: readText(last), images } : { text: readText(last) }
  if (messages.length === 1) return { input }
  const system = messages
    .filter((message) => message.role === 'system' || message.role === 'developer')
    .map(readText)
    .filter((text) => text.trim())
    .join('\n\n')
  const history: ClientPrompt['history'] = []
  for (const message of messages.slice(0, lastIndex)) {
    if (message.role !== 'user' && message.role !== 'assistant') continue
    const text = readText(message)
    if (text.trim()) history.push({ role: message.role, content: text })
  }
  return { input, clientPrompt: { ...(system ? { system } : {}), history } }
}
