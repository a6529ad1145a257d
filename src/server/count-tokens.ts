/**
 * Token counts for the `usage` of OpenAI-compatible answers when the model reports none: the
 * estimate (linear in the text, never below what common tokenizers give) over the messages sent to
 * the model and over the reply. A BPE tokenizer here cost seconds on one long unbroken text.
 */

import { estimateTokens } from '../shared/estimate-tokens.js'
import type { ChatMessage } from '../shared/messages.js'

/** Role markers and separators each chat message costs on top of its text. */
const messageOverhead = 4
/** What an image part costs (a high-detail 1024×1024 image). */
const imageTokens = 800

export function countTokens(text: string): number {
  return text ? estimateTokens(text) : 0
}

/** The estimated prompt tokens of the messages of one model call. */
export function countMessageTokens(messages: readonly ChatMessage[]): number {
  let tokens = 0
  for (const message of messages) {
    tokens += messageOverhead
    if (typeof message.content === 'string') tokens += countTokens(message.content)
    else
      for (const part of message.content) {
        if (part.type === 'text') tokens += countTokens(part.text)
        else if (part.type === 'image') tokens += imageTokens
        else tokens += countTokens(part.name ?? part.assetRef)
      }
    for (const call of message.toolCalls ?? [])
      tokens += countTokens(call.name + JSON.stringify(call.arguments))
  }
  return tokens
}
