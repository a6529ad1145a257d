/**
 * The preview of SPEC R3.5: the final messages with their source tags and token counts, plus the
 * processor logs. Inline `data:` images are shortened so the preview stays readable.
 */
import type { ChatMessage, ContentPart } from '../shared/messages.js'
import type { BuildContextResult, PreviewResult, TokenCounter } from './types.js'

const shownDataUriChars = 48

function shortenPart(part: ContentPart): ContentPart {
  if (part.type !== 'image' || !part.url?.startsWith('data:') || part.url.length <= shownDataUriChars)
    return part
  return { ...part, url: `${part.url.slice(0, shownDataUriChars)}…(${part.url.length} chars)` }
}

function shortenContent(content: ChatMessage['content']): ChatMessage['content'] {
  return typeof content === 'string' ? content : content.map(shortenPart)
}

export function createPreviewResult(result: BuildContextResult, tokenCounter: TokenCounter): PreviewResult {
  let total = 0
  const messages = result.messages.map((message) => {
    const tokens = tokenCounter.countMessage(message)
    total += tokens
    return {
      role: message.role,
      content: shortenContent(message.content),
      source: message.source ?? 'unknown',
      tokens,
    }
  })
  return { messages, total_tokens: total, logs: result.logs }
}
