/**
 * The server over the real engine (`createCharpipe`) and the mock model server: the endpoints as
 * users meet them, with real streaming, parsing, history and memory.
 */
import { readFile } from 'node:fs/promises'
import OpenAI from 'openai'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { type MockModelServer, startMockModelServer } from '../../src/testing/index.js'
import { readSse } from './read-sse.js'
import { startServerOverModel, type TestServer } from './start-test-server.js'
import { openTestSocket } from './websocket-client.js'

let model: MockModelServer
let otherModel: MockModelServer
let server: TestServer | undefined

beforeAll(async () => {
  model = await startMockModelServer()
  otherModel = await startMockModelServer()
})
afterAll(async () => {
  await model.close()
  await otherModel.close()
})
afterEach(async () => {
  await server?.stop()
  server = undefined
  model.reset()
  otherModel.reset()
})

const startWithEngine = async () => {
  server = await startServerOverModel(model.url, ['character:', '  reply_format: json'])
  return server
}

describe('the server over the real engine', () => {
  it('streams a WebSocket turn: emotion, chunks, sentences, done', async () => {
    await startWithEngine()
    model.script({ text: '{"emotion":"开心","text":"你好呀。今天天气真好！"}', chunkSize: 3 })
    const client = await openTestSocket(`${server!.url}/ws`)
    client.send({ type: 'user_input', session: 'real', text: '你好' })
    const events = await client.waitForTurn('real')
    expect(events.find((event) => event.type === 'llm_emotion')).toMatchObject({ emotion: '开心' })
    expect(events.filter((event) => event.type === 'llm_sentence').map((event) => event.text)).toEqual([
      '你好呀。',
      '今天天气真好！',
    ])
    expect(events.at(-1)).toMatchObject({ type: 'llm_done', text: '你好呀。今天天气真好！', emotion: '开心' })
    await client.close()
  })

  it('reports the turn: timing and usage on llm_done, the same in /metrics', async () => {
    await startWithEngine()
    model.script({
      text: '{"emotion":"开心","text":"好的。"}',
      usage: { inputTokens: 120, outputTokens: 9, cachedInputTokens: 64 },
    })
    const client = await openTestSocket(`${server!.url}/ws`)
    client.send({ type: 'user_input', session: 'report', text: '你好' })
    const done = (await client.waitForTurn('report')).at(-1)!
    await client.close()
    expect(done).toMatchObject({
      type: 'llm_done',
      usage: { prompt_tokens: 120, completion_tokens: 9, cached_tokens: 64 },
    })
    const timing = done.timing as { first_chunk_ms: number; first_sentence_ms: number; total_ms: number }
    expect(timing.first_sentence_ms).toBeGreaterThanOrEqual(timing.first_chunk_ms)
    expect(timing.total_ms).toBeGreaterThanOrEqual(timing.first_sentence_ms)
    const metrics = await (await fetch(`${server!.url}/metrics`)).text()
    expect(metrics).toMatch(/charpipe_tokens_total\{kind="prompt"\} 120/)
    expect(metrics).toMatch(/charpipe_tokens_total\{kind="cached"\} 64/)
    expect(metrics).toMatch(/charpipe_turn_duration_seconds_count 1/)
  })

  it('streams an SSE turn and answers the openai client, stream and not', async () => {
    await startWithEngine()
    model.script([
      { text: '{"emotion":"平静","text":"第一句。"}' },
      { text: '{"emotion":"难过","text":"第二句。"}' },
      { text: '{"emotion":"惊讶","text":"第三句！"}' },
    ])
    const messages = await readSse(
      await fetch(`${server!.url}/api/chat`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ session: 'o', text: 'a' }),
      }),
    )
    expect(messages.at(-1)!.event).toBe('llm_done')
    expect(JSON.parse(messages.at(-1)!.data)).toMatchObject({ text: '第一句。', emotion: '平静' })
    const client = new OpenAI({ baseURL: `${server!.url}/v1`, apiKey: 'unused', maxRetries: 0 })
    const completion = await client.chat.completions.create({
      model: 'x',
      messages: [{ role: 'user', content: 'b' }],
      user: 'o',
    })
    expect(completion.choices[0]!.message).toMatchObject({ content: '第二句。', emotion: '难过' })
    const stream = await client.chat.completions.create({
      model: 'x',
      messages: [{ role: 'user', content: 'c' }],
      user: 'o',
      stream: true,
    })
    let text = ''
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? ''
    expect(text).toBe('第三句！')
    const history = await (await fetch(`${server!.url}/api/sessions/o/messages`)).json()
    expect(history.messages.map((message: { content: string }) => message.content)).toEqual([
      'a',
      '第一句。',
      'b',
      '第二句。',
      'c',
      '第三句！',
    ])
  })

  it('maps an upstream failure to llm_error and the HTTP status of the OpenAI endpoint', async () => {
    await startWithEngine()
    model.script({ status: 500, body: { error: { message: 'boom' } } })
    const client = new OpenAI({ baseURL: `${server!.url}/v1`, apiKey: 'unused', maxRetries: 0 })
    await expect(
      client.chat.completions.create({ model: 'x', messages: [{ role: 'user', content: 'hi' }] }),
    ).rejects.toMatchObject({ status: 502, code: 'upstream_http' })
  })

  it('interrupts a turn from the WebSocket and stores what was heard', async () => {
    await startWithEngine()
    model.script({
      text: `{"emotion":"开心","text":"${'很长的故事。'.repeat(40)}"}`,
      chunkSize: 2,
      delayMs: 15,
    })
    const client = await openTestSocket(`${server!.url}/ws`)
    client.send({ type: 'user_input', session: 'cut', text: '讲故事' })
    await client.waitFor((frame) => frame.type === 'llm_sentence')
    client.send({ type: 'interrupt', session: 'cut', heard: '很长的' })
    expect(await client.waitFor((frame) => frame.type === 'llm_done')).toMatchObject({ interrupted: true })
    const history = await (await fetch(`${server!.url}/api/sessions/cut/messages`)).json()
    expect(history.messages.at(-1)).toMatchObject({ role: 'assistant', content: '很长的', interrupted: true })
    await client.close()
  })

  it('applies a provider switch from PUT /api/config to the next turn, history kept', async () => {
    await startWithEngine()
    model.script({ text: '{"emotion":"开心","text":"来自第一个模型。"}' })
    otherModel.script({ text: '{"emotion":"开心","text":"来自第二个模型。"}' })
    const client = await openTestSocket(`${server!.url}/ws`)
    client.send({ type: 'user_input', session: 'sw', text: '第一问' })
    expect((await client.waitForTurn('sw')).at(-1)!.text).toBe('来自第一个模型。')
    const response = await fetch(`${server!.url}/api/config`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ llm: { base_url: `${otherModel.url}/v1`, model: 'other-model' } }),
    })
    expect(response.status).toBe(200)
    const from = client.frames.length
    client.send({ type: 'user_input', session: 'sw', text: '第二问' })
    expect((await client.waitForTurn('sw', from)).at(-1)!.text).toBe('来自第二个模型。')
    expect(otherModel.requests).toHaveLength(1)
    const sent = JSON.stringify(otherModel.requests[0]!.body)
    expect(sent).toContain('第一问')
    expect(sent).toContain('来自第一个模型。')
    expect(sent).toContain('other-model')
    await client.close()
  })

  it('renaming the character keeps its conversations: the id is pinned to the old name', async () => {
    await startWithEngine()
    model.script([
      { text: '{"emotion":"开心","text":"记住了。"}' },
      { text: '{"emotion":"开心","text":"还记得。"}' },
    ])
    const client = await openTestSocket(`${server!.url}/ws`)
    client.send({ type: 'user_input', session: 'rename', text: '我叫小明' })
    await client.waitForTurn('rename')
    const response = await fetch(`${server!.url}/api/config`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ character: { name: '小雪' } }),
    })
    expect(response.status).toBe(200)
    expect(await readFile(server!.configPath, 'utf8')).toMatch(/id: 小助手/)
    const from = client.frames.length
    client.send({ type: 'user_input', session: 'rename', text: '我叫什么？' })
    await client.waitForTurn('rename', from)
    await client.close()
    // The renamed character's next request still carries the conversation so far.
    expect(JSON.stringify(model.requests[1]!.body)).toContain('我叫小明')
    const history = await (await fetch(`${server!.url}/api/sessions/rename/messages`)).json()
    expect(history.messages).toHaveLength(4)
  })

  it('answers memory searches with scores in [0, 1], the memory that says the words first, and nothing when nothing matches', async () => {
    await startWithEngine()
    for (const text of [
      '用户: 我喜欢吃巧克力蛋糕',
      '用户: 用户养了一只猫叫咪咪',
      '用户: 周末我们去吃火锅吧',
    ]) {
      const post = await fetch(`${server!.url}/api/memory`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ scope: 'carol', text, speaker: '用户' }),
      })
      expect(post.status).toBe(201)
    }
    const search = async (query: string) =>
      (
        (await (
          await fetch(`${server!.url}/api/memory/search?q=${encodeURIComponent(query)}&scope=carol&k=5`)
        ).json()) as { results: { text: string; score: number }[] }
      ).results
    const cake = await search('蛋糕')
    expect(cake[0]?.text).toBe('用户: 我喜欢吃巧克力蛋糕')
    for (const hit of cake) expect(hit.score > 0 && hit.score <= 1).toBe(true)
    expect(cake[0]!.score).toBeGreaterThan(0.05)
    expect((await search('我们去吃火锅吧'))[0]?.text).toBe('用户: 周末我们去吃火锅吧')
    expect(await search('量子物理')).toEqual([])
  })

  it('serves the memory endpoints from the engine memory store', async () => {
    await startWithEngine()
    const post = await fetch(`${server!.url}/api/memory`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ scope: 'mem', text: '用户最喜欢的水果是芒果', speaker: 'user' }),
    })
    expect(post.status).toBe(201)
    const { id } = (await post.json()) as { id: string }
    const search = await (
      await fetch(`${server!.url}/api/memory/search?q=${encodeURIComponent('喜欢什么水果')}&scope=mem`)
    ).json()
    expect(search.results[0]).toMatchObject({ id, text: '用户最喜欢的水果是芒果' })
    const kb = await fetch(`${server!.url}/api/kb`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'faq.md', text: '# 营业时间\n\n每天九点到五点。' }),
    })
    expect(kb.status).toBe(201)
    expect(((await kb.json()) as { chunks: number }).chunks).toBeGreaterThan(0)
  })
})
