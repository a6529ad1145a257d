/**
 * Joins two message contents with a separator, keeping attachment parts: strings stay strings,
 * anything with parts becomes parts.
 */
import type { ChatMessage, ContentPart, MessageSource } from '../../shared/messages.js'

export function joinMessageContents(
  first: ChatMessage['content'],
  second: ChatMessage['content'],
  separator = '\n\n',
): ChatMessage['content'] {
  if (typeof first === 'string' && typeof second === 'string') {
    if (!first) return second
    if (!second) return first
    return `${first}${separator}${second}`
  }
  const toParts = (content: ChatMessage['content']): ContentPart[] =>
    typeof content === 'string' ? (content ? [{ type: 'text', text: content }] : []) : content
  const left = toParts(first)
  const right = toParts(second)
  if (left.length === 0) return right
  if (right.length === 0) return left
  return [...left, { type: 'text', text: separator }, ...right]
}

/** The source a merged message keeps: `input` wins (it is the turn's input), else the first one's. */
function mergeSources(first: ChatMessage, second: ChatMessage): MessageSource | undefined {
  if (first.source === 'input' || second.source === 'input') return 'input'
  return first.source ?? second.source
}

/** Whether a message has no text and no parts. */
export function isEmptyMessage(message: ChatMessage): boolean {
  if (message.toolCalls?.length) return false
  if (typeof message.content === 'string') return message.content.trim() === ''
  return message.content.every((part) => part.type === 'text' && part.text.trim() === '')
}

/** A copy of `first` with `second` appended. */
export function mergeMessages(first: ChatMessage, second: ChatMessage, separator = '\n\n'): ChatMessage {
  return {
    ...first,
    content: joinMessageContents(first.content, second.content, separator),
    source: mergeSources(first, second),
  }
}
