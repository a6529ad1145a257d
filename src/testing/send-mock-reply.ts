/**
 * Writes one mock reply to the wire: an error status with its body, a non-streamed completion, or
 * a stream of SSE events with the reply's pacing and faults (time to first token, delay between
 * events, raw inserts, a connection destroyed after N events). Writing stops as soon as the client
 * hangs up.
 */
import type { ServerResponse } from 'node:http'
import { setTimeout as sleep } from 'node:timers/promises'
import { composeMockReply } from '../providers/compose-mock-reply.js'
import { countMockUsage } from './count-mock-usage.js'
import { loadFixture } from './load-fixture.js'
import type { MockReply } from './mock-reply.js'
import type { RecordedRequest } from './recorded-request.js'
import { renderAnthropicEvents, renderAnthropicMessage } from './render-anthropic-reply.js'
import { renderOpenAICompletion, renderOpenAIEvents } from './render-openai-reply.js'
import { findLastUserText } from './select-mock-reply.js'

export interface SendMockReplyOptions {
  api: 'openai' | 'anthropic'
  reply: MockReply
  record: RecordedRequest
  response: ServerResponse
  model: string
}

interface RequestBody {
  model?: string
  stream?: boolean
  stream_options?: { include_usage?: boolean }
}

function defaultErrorBody(api: 'openai' | 'anthropic', status: number): unknown {
  const message = `mock upstream error ${status}`
  if (api === 'anthropic') return { type: 'error', error: { type: 'api_error', message } }
  return { error: { message, type: 'mock_error', code: status } }
}

function sendError(options: SendMockReplyOptions, status: number): void {
  const { reply, response, api } = options
  const body = reply.body ?? defaultErrorBody(api, status)
  const text = typeof body === 'string' ? body : JSON.stringify(body)
  const headers: Record<string, string> = {
    'content-type': typeof body === 'string' ? 'text/plain; charset=utf-8' : 'application/json',
    ...reply.headers,
  }
  if (reply.retryAfter !== undefined) headers['retry-after'] = String(reply.retryAfter)
  response.writeHead(status, headers)
  response.end(text)
}

/**
 * Cuts the connection after the events written so far have reached the wire. Node corks a
 * response's writes until the next tick, so destroying the socket in the same tick as the writes
 * (a break with no delay) would silently drop them, and the client would never see those events.
 */
async function breakConnection(response: ServerResponse): Promise<void> {
  const socket = response.socket
  if (!socket) return
  while (socket.writableCorked) socket.uncork()
  await new Promise<void>((resolve) => socket.write(new Uint8Array(0), () => resolve()))
  socket.destroy()
}

async function writeEvents(
  options: SendMockReplyOptions,
  events: string[],
  status = 200,
  contentType?: string,
) {
  const { reply, response } = options
  response.writeHead(status, {
    'content-type': contentType ?? 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
    ...reply.headers,
  })
  response.flushHeaders()
  let open = true
  response.once('close', () => {
    open = false
  })
  if (reply.firstTokenDelayMs) await sleep(reply.firstTokenDelayMs)
  const inserts = reply.insert ?? []
  for (let index = 0; index <= events.length; index++) {
    for (const insert of inserts) if (insert.after === index && open) response.write(insert.raw)
    if (index === events.length) break
    if (index > 0 && reply.delayMs) await sleep(reply.delayMs)
    if (reply.breakAfterChunks === index) {
      await breakConnection(response)
      return
    }
    if (!open) return
    response.write(events[index])
    options.record.sentEvents++
  }
  if (open) response.end()
}

function replyText(options: SendMockReplyOptions): string {
  const { reply, record } = options
  if (reply.text !== undefined) return reply.text
  if (reply.toolCalls?.length) return ''
  return composeMockReply({ userText: findLastUserText(record.body) }).text
}

export async function sendMockReply(options: SendMockReplyOptions): Promise<void> {
  const { reply, record, response, api } = options
  const body = record.body as RequestBody
  if (reply.status !== undefined && (reply.status < 200 || reply.status >= 300))
    return sendError(options, reply.status)
  if (reply.fixture) {
    const fixture = await loadFixture(reply.fixture, { interaction: reply.interaction })
    return writeEvents(options, fixture.events, reply.status ?? fixture.status, fixture.contentType)
  }
  if (reply.rawChunks) return writeEvents(options, reply.rawChunks, reply.status ?? 200)
  const text = replyText(options)
  // The default reply (no script gave its text) counts its tokens with a tokenizer; a scripted reply
  // keeps its own counts, so scripted and fixture answers stay byte for byte what they were.
  const composed = reply.text === undefined && !reply.toolCalls?.length && reply.usage === undefined
  const counted = composed ? { ...reply, usage: await countMockUsage(record.body, text) } : reply
  const render = { model: body.model || options.model, text }
  if (!body.stream) {
    const value =
      api === 'openai' ? renderOpenAICompletion(counted, render) : renderAnthropicMessage(counted, render)
    const text = JSON.stringify(value)
    response.writeHead(reply.status ?? 200, { 'content-type': 'application/json', ...reply.headers })
    response.end(text)
    return
  }
  const events =
    api === 'openai'
      ? renderOpenAIEvents(counted, { ...render, includeUsage: body.stream_options?.include_usage === true })
      : renderAnthropicEvents(counted, render)
  await writeEvents(options, events, reply.status ?? 200)
}
