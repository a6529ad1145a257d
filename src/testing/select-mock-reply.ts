/**
 * Finds the per-request reply a client asked for: an `x-mock-reply` header (JSON, or `base64:` and
 * base64 of JSON, since header values must be ASCII), or a `[[mock-reply:{…}]]` marker anywhere in
 * the last user message, which works from any client that can only send messages. A request may
 * shape its reply but not name a fixture file: only the script the user gave (`--script`, or
 * `script(…)` in a test) reads files, so no request reads a file of its choosing.
 */
import { type MockReply, parseMockReply } from './mock-reply.js'

export const mockReplyHeader = 'x-mock-reply'

const markerPattern = /\[\[mock-reply:([\s\S]*?)\]\]/

interface WireMessage {
  role?: string
  content?: unknown
}

/** The text of the last user message of an OpenAI or Anthropic request body. */
export function findLastUserText(body: unknown): string {
  const messages = (body as { messages?: WireMessage[] } | null)?.messages
  if (!Array.isArray(messages)) return ''
  for (let index = messages.length - 1; index >= 0; index--) {
    const message = messages[index]
    if (message?.role !== 'user') continue
    if (typeof message.content === 'string') return message.content
    if (!Array.isArray(message.content)) return ''
    return message.content
      .map((part: { type?: string; text?: unknown }) =>
        part?.type === 'text' && typeof part.text === 'string' ? part.text : '',
      )
      .join('')
  }
  return ''
}

function refuseFixture(reply: MockReply, source: string): MockReply {
  if (reply.fixture !== undefined) {
    throw new Error(`invalid ${source}: "fixture" can only be named by a script (--script), not by a request`)
  }
  return reply
}

/** The reply a request asked for in its header or last user message, if any. */
export function selectRequestedReply(headers: Record<string, string>, body: unknown): MockReply | undefined {
  const header = headers[mockReplyHeader]
  if (header) {
    const json = header.startsWith('base64:')
      ? Buffer.from(header.slice(7), 'base64').toString('utf8')
      : header
    const source = `${mockReplyHeader} header`
    return refuseFixture(parseMockReply(JSON.parse(json), source), source)
  }
  const match = markerPattern.exec(findLastUserText(body))
  if (match)
    return refuseFixture(parseMockReply(JSON.parse(match[1]!), 'mock-reply marker'), 'mock-reply marker')
  return undefined
}
