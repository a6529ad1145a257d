/**
 * Token counts for the mock model's own default reply, from a real tokenizer (gpt-tokenizer's
 * o200k_base, what current OpenAI models use) rather than characters: what the request sent (its
 * system prompt and every message's text) and what the reply says. Scripted and fixture replies keep
 * the counts they always had (or the ones they give), byte for byte. The tokenizer is loaded on the
 * first default reply only.
 */
import type { MockReply } from './mock-reply.js'

interface WireMessage {
  content?: unknown
}

function textOf(content: unknown): string {
  if (typeof content === 'string') return content
  if (!Array.isArray(content)) return ''
  return content
    .map((part: { type?: string; text?: unknown }) => (typeof part?.text === 'string' ? part.text : ''))
    .join('\n')
}

/** The request's text: the Anthropic `system` and every message's text parts. */
function promptTextOf(body: unknown): string {
  const request = (body ?? {}) as { system?: unknown; messages?: WireMessage[] }
  const messages = Array.isArray(request.messages) ? request.messages : []
  return [textOf(request.system), ...messages.map((message) => textOf(message?.content))]
    .filter((text) => text !== '')
    .join('\n')
}

export async function countMockUsage(
  body: unknown,
  replyText: string,
): Promise<NonNullable<MockReply['usage']>> {
  const { countTokens } = await import('gpt-tokenizer/encoding/o200k_base')
  return { inputTokens: countTokens(promptTextOf(body)), outputTokens: countTokens(replyText) }
}
