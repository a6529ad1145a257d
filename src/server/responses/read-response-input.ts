/**
 * What an Open Responses request says, as a turn: its input items (after the conversation of the
 * response it continues, and after its `instructions` as the client's system message) become chat
 * messages, read by the same reader as `/v1/chat/completions` (read-openai-messages.ts). Message
 * parts `input_text` and `output_text` are text, `input_image` an image; a `function_call` is the
 * model's earlier call of a client tool and a `function_call_output` its result.
 */
import type { OpenAICompletionBody } from '../request-schemas.js'
import type { ResponseOutputItem } from './create-response-resource.js'
import type { ResponseInputItem } from './response-request-schema.js'

type CompletionMessage = OpenAICompletionBody['messages'][number]

export type ReadResponseInputResult =
  | { ok: true; messages: CompletionMessage[] }
  | { ok: false; message: string }

const textParts = new Set(['input_text', 'output_text', 'text'])

type MessageItem = Extract<ResponseInputItem, { role: string }>
type FunctionCallItem = Extract<ResponseInputItem, { type: 'function_call' }>
type FunctionCallOutputItem = Extract<ResponseInputItem, { type: 'function_call_output' }>

/** The parts as chat content parts, or a message naming the part that cannot be taken. */
function convertParts(
  parts: Exclude<MessageItem['content'], string>,
  where: string,
): NonNullable<Exclude<CompletionMessage['content'], string>> | string {
  const converted: NonNullable<Exclude<CompletionMessage['content'], string>> = []
  for (const [index, part] of parts.entries()) {
    if (textParts.has(part.type)) converted.push({ type: 'text', text: part.text ?? '' })
    else if (part.type === 'input_image') {
      if (!part.image_url)
        return `${where}.${index}: an input_image needs an image_url (a URL or a data: URI)`
      converted.push({ type: 'image_url', image_url: part.image_url })
    } else return `${where}.${index}: parts of type ${part.type} are not supported (input_text, input_image)`
  }
  return converted
}

function readOutputText(output: string | { type: string; text?: string }[]): string {
  if (typeof output === 'string') return output
  return output
    .map((part) => part.text ?? '')
    .filter(Boolean)
    .join('\n')
}

/** The items of a request as chat messages; a message naming what is wrong for an item it cannot take. */
export function convertResponseItems(items: readonly ResponseInputItem[]): ReadResponseInputResult {
  const messages: CompletionMessage[] = []
  for (const [index, item] of items.entries()) {
    if (item.type === 'function_call') {
      const call = item as FunctionCallItem
      messages.push({
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: call.call_id, type: 'function', function: { name: call.name, arguments: call.arguments } },
        ],
      })
    } else if (item.type === 'function_call_output') {
      const result = item as FunctionCallOutputItem
      messages.push({ role: 'tool', tool_call_id: result.call_id, content: readOutputText(result.output) })
    } else if (item.type === undefined || item.type === 'message') {
      const message = item as MessageItem
      if (typeof message.content === 'string') {
        messages.push({ role: message.role, content: message.content })
        continue
      }
      const content = convertParts(message.content, `input.${index}.content`)
      if (typeof content === 'string') return { ok: false, message: content }
      messages.push({ role: message.role, content })
    }
    // Reasoning items and item references carry nothing the character's turn reads.
  }
  return { ok: true, messages }
}

/** The request's items: a string input is one user message. */
export function normalizeResponseInput(input: string | readonly ResponseInputItem[]): ResponseInputItem[] {
  return typeof input === 'string' ? [{ type: 'message', role: 'user', content: input }] : [...input]
}

/** Output items as the input items a later request continuing this response carries. */
export function convertOutputToInputItems(output: readonly ResponseOutputItem[]): ResponseInputItem[] {
  return output.map((item): ResponseInputItem => {
    if (item.type === 'function_call') {
      return { type: 'function_call', call_id: item.call_id, name: item.name, arguments: item.arguments }
    }
    // Kept as the reasoning it was: read back, it is skipped, never the character's words.
    if (item.type === 'reasoning') return { type: 'reasoning', id: item.id, summary: [] }
    return {
      type: 'message',
      role: 'assistant',
      content: item.content.map((part) => ({ type: 'output_text', text: part.text })),
    }
  })
}
