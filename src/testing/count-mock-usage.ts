/**
 * Token counts for the mock model's own default reply, from a real tokenizer (gpt-tokenizer's
 * o200k_base, what current OpenAI models use) rather than characters: what the request sent (its
 * system prompt and every message's text) and what the reply says. Scripted and fixture replies keep
 * the counts they always had (or the ones they give), byte for byte. The tokenizer is loaded on the
 * first default reply only. Texts are counted in windows, as the engine's own counter does: the
 * tokenizer's cost is quadratic in one unbroken run (a 40,000-character run of one CJK character
 * held the loop for seconds).
 */
import { countTextInWindows } from '../context/tokens/create-token-counter.js'
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

/** A text's tokens by `countTokens`, never handed a window or unbroken run past the engine's bounds. */
export function countUsageText(text: string, countTokens: (text: string) => number): number {
  return countTextInWindows(text, countTokens)
}

export async function countMockUsage(
  body: unknown,
  replyText: string,
): Promise<NonNullable<MockReply['usage']>> {
  const { countTokens } = await import('gpt-tokenizer/encoding/o200k_base')
  const count = (text: string) => countUsageText(text, countTokens)
  return { inputTokens: count(promptTextOf(body)), outputTokens: count(replyText) }
}
