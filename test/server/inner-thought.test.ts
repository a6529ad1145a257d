/**
 * Inner thought (`character.thoughts`) through the real server over the mock model server: the
 * WebSocket client gets `llm_thought` and no chunk, sentence or `llm_done.text` holds the thought;
 * the turn's history (SQLite) keeps it; `/v1/chat/completions` sends it as `reasoning_content`, read
 * with the official `openai` client, and never as content; `/v1/responses` as a reasoning item.
 */
import OpenAI from 'openai'
import { describe, expect, it } from 'vitest'
import { expectValidEvent, expectValidResource } from './open-responses-schemas.js'
import { readSse } from './read-sse.js'
import { useServersOverMockModel } from './use-servers-over-mock-model.js'
import { openTestSocket } from './websocket-client.js'

const suite = useServersOverMockModel()

const thought = '他看起来很累，先问候一下'
const reply = { thought, emotion: 'happy', text: '你好呀。今天辛苦了！' }
const thinkingCharacter = ['character:', '  name: Mika', '  reply_format: json', '  thoughts: true']

/** The reply cut into small chunks, so the thought arrives split as well. */
const scriptReply = () => suite.model.script({ text: JSON.stringify(reply), chunkSize: 3 })

const openai = () => new OpenAI({ baseURL: `${suite.server.url}/v1`, apiKey: 'unused', maxRetries: 0 })

describe('inner thought through the server', () => {
  it('WebSocket: llm_thought before the first sentence, never in chunks; stored with the turn', async () => {
    await suite.start(thinkingCharacter)
    scriptReply()
    const client = await openTestSocket(`${suite.server.url}/ws`)
    suite.onCleanup(() => void client.close())
    client.send({ type: 'user_input', session: 'mind', text: '我回来了' })
    const events = await client.waitForTurn('mind')
    const thoughts = events.filter((event) => event.type === 'llm_thought')
    expect(thoughts).toEqual([
      { type: 'llm_thought', session: 'mind', turn: events[0]!.turn, trigger: 'input', text: thought },
    ])
    const spoken = events
      .filter(
        (event) => event.type === 'llm_chunk' || event.type === 'llm_sentence' || event.type === 'llm_done',
      )
      .map((event) => String(event.text))
    expect(spoken.join('')).not.toContain('累')
    expect(events.at(-1)).toMatchObject({ type: 'llm_done', text: reply.text, emotion: 'happy' })
    const types = events.map((event) => event.type)
    expect(types.indexOf('llm_thought')).toBeLessThan(types.indexOf('llm_emotion'))
    expect(types.indexOf('llm_emotion')).toBeLessThan(types.indexOf('llm_sentence'))
    const stored = await (await fetch(`${suite.server.url}/api/sessions/mind/messages`)).json()
    expect(stored.messages.at(-1)).toMatchObject({ role: 'assistant', content: reply.text, thought })
  })

  it('/v1/chat/completions, streamed, official openai client: the thought is reasoning_content only', async () => {
    await suite.start(thinkingCharacter)
    scriptReply()
    const stream = await openai().chat.completions.create({
      model: 'mika',
      messages: [{ role: 'user', content: '我回来了' }],
      stream: true,
    })
    let content = ''
    let reasoning = ''
    for await (const chunk of stream) {
      const delta = chunk.choices[0]?.delta as { content?: string | null; reasoning_content?: string }
      content += delta?.content ?? ''
      reasoning += delta?.reasoning_content ?? ''
    }
    expect(reasoning).toBe(thought)
    expect(content).toBe(reply.text)
  })

  it('/v1/chat/completions, not streamed: message.reasoning_content beside the content', async () => {
    await suite.start(thinkingCharacter)
    scriptReply()
    const completion = await openai().chat.completions.create({
      model: 'mika',
      messages: [{ role: 'user', content: '我回来了' }],
    })
    const message = completion.choices[0]!.message as { content: string | null; reasoning_content?: string }
    expect(message.reasoning_content).toBe(thought)
    expect(message.content).toBe(reply.text)
  })

  it('/v1/responses: a reasoning item with the thought, the message without it', async () => {
    await suite.start(thinkingCharacter)
    scriptReply()
    const response = await openai().responses.create({ model: 'mika', input: '我回来了' })
    const reasoning = response.output.find((item) => item.type === 'reasoning')
    expect(reasoning).toMatchObject({
      type: 'reasoning',
      content: [{ type: 'reasoning_text', text: thought }],
    })
    expect(response.output_text).toBe(reply.text)
  })

  it('/v1/responses, streamed: the reasoning item and its events are valid by the spec, before the message', async () => {
    await suite.start(thinkingCharacter)
    scriptReply()
    const response = await fetch(`${suite.server.url}/v1/responses`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'mika', input: '我回来了', stream: true }),
    })
    const events = (await readSse(response)).map((message) => JSON.parse(message.data))
    for (const event of events) expectValidEvent(event)
    const types = events.map((event) => event.type as string)
    expect(types.filter((type) => type.startsWith('response.reasoning'))).toEqual([
      'response.reasoning.delta',
      'response.reasoning.done',
    ])
    expect(events.find((event) => event.type === 'response.reasoning.done').text).toBe(thought)
    expect(types.indexOf('response.reasoning.done')).toBeLessThan(types.indexOf('response.output_text.delta'))
    const deltas = events.filter((event) => event.type === 'response.output_text.delta')
    expect(deltas.map((event) => event.delta).join('')).toBe(reply.text)
    const completed = events.at(-1)
    expect(completed.type).toBe('response.completed')
    expectValidResource(completed.response)
    expect(completed.response.output.map((item: { type: string }) => item.type)).toEqual([
      'reasoning',
      'message',
    ])
  })
})
