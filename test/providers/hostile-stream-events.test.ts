/**
 * A model's stream is outside data: an upstream (a gateway, a local server, a broken proxy) may send
 * any event. Over the mock model server's real wire, each case inserts one event into an ordinary
 * reply: a valid OpenAI chunk or Anthropic event with one field replaced by any value (another type,
 * `null`, an object whose `toString` is not a function, a huge string, deep nesting), unknown
 * fields, the whole event replaced, truncated JSON or bytes that are no JSON
 * (test/support/fuzzed-inputs.ts). The provider's stream ends either normally or with a
 * `CharpipeError` that says what was wrong; never another error, which the turn would report as
 * an internal failure.
 */
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createAnthropicProvider } from '../../src/providers/create-anthropic-provider.js'
import { createOpenAICompatibleProvider } from '../../src/providers/create-openai-compatible-provider.js'
import type { ChatProvider, ProviderEvent } from '../../src/providers/types.js'
import { CharpipeError } from '../../src/shared/errors.js'
import { createLogger } from '../../src/shared/logger.js'
import { type MockModelServer, startMockModelServer } from '../../src/testing/index.js'
import { type FuzzedText, fuzzedText } from '../support/fuzzed-inputs.js'

const numRuns = 60
const silent = createLogger({ level: 'silent' })
const tools = [{ name: 'weather', description: 'Weather', parameters: { type: 'object', properties: {} } }]

let server: MockModelServer
beforeAll(async () => {
  server = await startMockModelServer()
})
afterAll(() => server.close())

const openaiChunk = {
  id: 'chatcmpl-1',
  object: 'chat.completion.chunk',
  created: 1,
  model: 'deepseek-chat',
  choices: [
    {
      index: 0,
      delta: {
        role: 'assistant',
        content: '你好',
        reasoning_content: '想一想',
        tool_calls: [
          {
            index: 0,
            id: 'call_1',
            type: 'function',
            function: { name: 'weather', arguments: '{"city":"Oslo"}' },
          },
        ],
      },
      finish_reason: null,
    },
  ],
  usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 },
}

/** Anthropic events by name, each a valid one of its kind. */
const anthropicEvents: Record<string, Record<string, unknown>> = {
  message_start: {
    type: 'message_start',
    message: {
      id: 'msg_1',
      type: 'message',
      role: 'assistant',
      model: 'claude-sonnet-5-5',
      content: [],
      stop_reason: null,
      usage: { input_tokens: 3, output_tokens: 1 },
    },
  },
  content_block_start: {
    type: 'content_block_start',
    index: 1,
    content_block: { type: 'tool_use', id: 'toolu_1', name: 'weather', input: {} },
  },
  content_block_delta: {
    type: 'content_block_delta',
    index: 0,
    delta: { type: 'text_delta', text: '你好' },
  },
  message_delta: {
    type: 'message_delta',
    delta: { stop_reason: 'end_turn', stop_sequence: null },
    usage: { output_tokens: 5 },
  },
}

/** The text of one SSE event: its data on one line, as a server writes it (a line break ends it). */
const sseEvent = (data: string, name?: string) =>
  `${name === undefined ? '' : `event: ${name}\n`}data: ${data.replace(/[\r\n]/g, ' ')}\n\n`

interface Ended {
  events: ProviderEvent[]
  error?: unknown
}

async function collect(stream: AsyncIterable<ProviderEvent>): Promise<Ended> {
  const events: ProviderEvent[] = []
  try {
    for await (const event of stream) events.push(event)
    return { events }
  } catch (error) {
    return { events, error }
  }
}

/** What a JavaScript error says when code trusted a field's type: never a reason for a client. */
const typeConfusion =
  /Cannot (read|convert|use)|is not (a function|iterable)|\[object Object\]|Maximum call stack/

function expectEndedWell(what: string, sent: FuzzedText, ended: Ended) {
  const shown = `${what} ← ${sent.kind}: ${sent.text.slice(0, 300)}`
  // What was passed on before the end is of the types the turn reads.
  for (const event of ended.events) {
    if (event.type === 'text-delta' || event.type === 'reasoning-delta')
      expect(typeof event.text, `${shown}: ${event.type} carries text`).toBe('string')
    if (event.type === 'tool-call') {
      expect(typeof event.name, `${shown}: a tool call's name is text`).toBe('string')
      expect(typeof event.id, `${shown}: a tool call's id is text`).toBe('string')
    }
    if (event.type === 'finish') expect(typeof event.reason, `${shown}: a finish reason`).toBe('string')
  }
  if (ended.error === undefined) return
  expect(CharpipeError.isInstance(ended.error), `${shown}: a CharpipeError, not ${String(ended.error)}`).toBe(
    true,
  )
  const message = (ended.error as Error).message
  expect(message.length, `${shown}: says what was wrong`).toBeGreaterThan(0)
  expect(message, `${shown}: names the field, not a TypeError`).not.toMatch(typeConfusion)
}

async function runCase(provider: ChatProvider, raw: string): Promise<Ended> {
  server.script({ text: '今天天气很好。', chunkSize: 2, insert: [{ after: 2, raw }] })
  return collect(provider.streamChat({ messages: [{ role: 'user', content: '天气' }], tools }))
}

describe('a model stream with one hostile event', { timeout: 120_000 }, () => {
  it('OpenAI-compatible: ends normally or with a CharpipeError', async () => {
    const provider = createOpenAICompatibleProvider({
      name: 'deepseek',
      apiType: 'openai',
      baseUrl: `${server.url}/v1`,
      model: 'deepseek-chat',
      apiKey: 'sk-test-key-123456',
      logger: silent,
    })
    await fc.assert(
      fc.asyncProperty(fuzzedText(openaiChunk), async (sent) => {
        expectEndedWell('chat.completion.chunk', sent, await runCase(provider, sseEvent(sent.text)))
      }),
      { numRuns },
    )
  })

  for (const [name, event] of Object.entries(anthropicEvents)) {
    it(`Anthropic ${name}: ends normally or with a CharpipeError`, async () => {
      const provider = createAnthropicProvider({
        name: 'anthropic',
        apiType: 'anthropic',
        baseUrl: server.url,
        model: 'claude-sonnet-5-5',
        apiKey: 'sk-ant-test-key-0001',
        maxTokens: 512,
        logger: silent,
      })
      await fc.assert(
        fc.asyncProperty(fuzzedText(event), async (sent) => {
          expectEndedWell(name, sent, await runCase(provider, sseEvent(sent.text, name)))
        }),
        { numRuns },
      )
    })
  }
})
