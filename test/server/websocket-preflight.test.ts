/**
 * Preflight over the WebSocket, with the real engine and the mock model server (a set time to
 * first token): an early transcript prepares the turn, the final one adopts it or starts over.
 */
import { join } from 'node:path'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { createCharpipe } from '../../src/engine/index.js'
import { type MockModelServer, startMockModelServer } from '../../src/testing/index.js'
import type { Tool } from '../../src/tools/types.js'
import { startServerOverModel, startTestServer, type TestServer } from './start-test-server.js'
import { openTestSocket, type TestSocket } from './websocket-client.js'

let model: MockModelServer
let server: TestServer | undefined
let client: TestSocket | undefined

beforeAll(async () => {
  model = await startMockModelServer()
})
afterAll(async () => {
  await model.close()
})
afterEach(async () => {
  await client?.close()
  await server?.stop()
  client = undefined
  server = undefined
  model.reset()
})

async function start(conversation: string[] = [], memory = false): Promise<TestSocket> {
  server = await startServerOverModel(model.url, [
    conversation.length > 0 ? 'conversation:' : 'conversation: {}',
    ...conversation.map((line) => `  ${line}`),
    'memory:',
    `  enabled: ${memory}`,
  ])
  client = await openTestSocket(`${server.url}/ws`)
  return client
}

async function stored(session: string): Promise<{ role: string; content: string }[]> {
  const response = await fetch(`${server!.url}/api/sessions/${session}/messages`)
  return ((await response.json()) as { messages: { role: string; content: string }[] }).messages.map(
    ({ role, content }) => ({ role, content }),
  )
}

async function metric(line: string): Promise<number | undefined> {
  const text = await (await fetch(`${server!.url}/metrics`)).text()
  const found = text.split('\n').find((each) => each.startsWith(`${line} `))
  return found === undefined ? undefined : Number(found.slice(line.length + 1))
}

/** The last user message of a request the mock model received. */
function lastUserText(index: number): string {
  const body = model.requests[index]!.body as { messages: { role: string; content: unknown }[] }
  const users = body.messages.filter((message) => message.role === 'user')
  return JSON.stringify(users.at(-1)?.content)
}

/** The machine is shared: give what is awaited more than the default second. */
const patience = { timeout: 5000 }

const sessionFrames = (socket: TestSocket, session: string) =>
  socket.frames.filter((frame) => frame.session === session)

describe('preflight over the WebSocket', () => {
  for (const mode of ['interrupt', 'queue'] as const) {
    it(`adopted (${mode}): one model request, the prepared events first under one turn id, one stored turn with the final text`, async () => {
      const socket = await start([`on_new_input: ${mode}`])
      model.script({ text: '今天是晴天。出门记得带水。', firstTokenDelayMs: 300 })
      socket.send({ type: 'user_input', session: 'a', text: '今天天气怎么样', preflight: true })
      await expect.poll(() => model.requests.length, patience).toBe(1)
      // The whole reply has been prepared before the user finished; nothing of it went out.
      await model.requests[0]!.closed
      expect(model.requests[0]!.closedEarly).toBe(false)
      expect(sessionFrames(socket, 'a')).toEqual([])
      expect(await stored('a')).toEqual([])

      // Full-width letters, other punctuation and spacing: the same words.
      socket.send({ type: 'user_input', session: 'a', text: '今天天气，怎么样？ ' })
      const frames = await socket.waitForTurn('a')
      expect(model.requests).toHaveLength(1)
      expect(new Set(frames.map((frame) => frame.turn)).size).toBe(1)
      expect(frames.map((frame) => frame.type).filter((type) => type === 'llm_sentence')).toHaveLength(2)
      // The prepared sentences are the first thing the final input gets.
      expect(frames[0]!.type).not.toBe('llm_error')
      expect(frames.filter((frame) => frame.type === 'llm_sentence').map((frame) => frame.text)).toEqual([
        '今天是晴天。',
        '出门记得带水。',
      ])
      const done = frames.at(-1)!
      expect(done).toMatchObject({ type: 'llm_done', interrupted: false, text: '今天是晴天。出门记得带水。' })
      const timing = done.timing as Record<string, number>
      expect(typeof timing.preflight_saved_ms).toBe('number')
      expect(typeof timing.first_sentence_ms).toBe('number')

      expect(await stored('a')).toEqual([
        { role: 'user', content: '今天天气，怎么样？ ' },
        { role: 'assistant', content: '今天是晴天。出门记得带水。' },
      ])
      expect(await metric('charpipe_preflights_total{outcome="adopted"}')).toBe(1)
      expect(await metric('charpipe_turns_total{endpoint="ws"}')).toBe(1)
      expect(await metric('charpipe_preflight_wasted_requests_total')).toBe(0)
    })
  }

  it('changed: the prepared request is aborted upstream, the reply answers the final text, nothing of the preflight is stored', async () => {
    const socket = await start()
    model.script([
      { text: '明天去公园吧。', firstTokenDelayMs: 5000 },
      { text: '后天去海边吧。', firstTokenDelayMs: 50 },
    ])
    socket.send({ type: 'user_input', session: 'c', text: '明天去哪里', preflight: true })
    await expect.poll(() => model.requests.length, patience).toBe(1)
    socket.send({ type: 'user_input', session: 'c', text: '后天去哪里？' })
    const frames = await socket.waitForTurn('c')
    await model.requests[0]!.closed
    expect(model.requests[0]!.closedEarly).toBe(true)
    expect(model.requests).toHaveLength(2)
    expect(lastUserText(1)).toContain('后天去哪里')
    expect(frames.at(-1)).toMatchObject({ type: 'llm_done', text: '后天去海边吧。', interrupted: false })
    expect(frames.some((frame) => frame.type === 'llm_error')).toBe(false)
    expect(await stored('c')).toEqual([
      { role: 'user', content: '后天去哪里？' },
      { role: 'assistant', content: '后天去海边吧。' },
    ])
    expect(await metric('charpipe_preflights_total{outcome="changed"}')).toBe(1)
    await expect.poll(() => metric('charpipe_preflight_wasted_requests_total'), patience).toBe(1)
    expect(await metric('charpipe_turns_total{endpoint="ws"}')).toBe(1)
  })

  it('never confirmed: nothing is sent, nothing stored (history or memory), its cost counted apart', async () => {
    const socket = await start(['preflight_timeout_ms: 300'], true)
    model.script({ text: '没人听到的回答。', usage: { inputTokens: 40, outputTokens: 7 } })
    socket.send({ type: 'user_input', session: 'n', text: '嗯那个', preflight: true })
    await expect.poll(() => model.requests.length, patience).toBe(1)
    await expect.poll(() => metric('charpipe_preflights_total{outcome="expired"}'), patience).toBe(1)
    await expect
      .poll(() => metric('charpipe_preflight_wasted_tokens_total{kind="completion"}'), patience)
      .toBe(7)
    expect(await metric('charpipe_preflight_wasted_tokens_total{kind="prompt"}')).toBe(40)
    expect(sessionFrames(socket, 'n')).toEqual([])
    expect(await stored('n')).toEqual([])
    const memories = await (await fetch(`${server!.url}/api/memory?scope=n`)).json()
    expect(JSON.stringify(memories)).not.toContain('没人听到')
    expect(await metric('charpipe_turns_total{endpoint="ws"}')).toBeUndefined()

    // The final input that comes late starts over.
    model.script({ text: '现在才回答。' })
    socket.send({ type: 'user_input', session: 'n', text: '嗯那个' })
    const frames = await socket.waitForTurn('n')
    expect(frames.at(-1)).toMatchObject({ text: '现在才回答。' })
    expect(model.requests).toHaveLength(2)
    // Memory does take the turns that are said (so the check above could see one).
    await expect
      .poll(
        async () => JSON.stringify(await (await fetch(`${server!.url}/api/memory?scope=n`)).json()),
        patience,
      )
      .toContain('现在才回答')
  })

  it('a preflight during a running reply does not cut it (it is ignored)', async () => {
    const socket = await start()
    model.script({ text: '从前有座山，山里有座庙。庙里有个老和尚。', chunkSize: 1, delayMs: 20 })
    socket.send({ type: 'user_input', session: 'r', text: '讲个故事' })
    await socket.waitFor((frame) => frame.type === 'llm_chunk' && frame.session === 'r')
    socket.send({ type: 'user_input', session: 'r', text: '等一下', preflight: true })
    const frames = await socket.waitForTurn('r')
    expect(frames.at(-1)).toMatchObject({
      interrupted: false,
      text: '从前有座山，山里有座庙。庙里有个老和尚。',
    })
    expect(frames.some((frame) => frame.type === 'llm_error')).toBe(false)
    expect(model.requests).toHaveLength(1)
    expect(await metric('charpipe_preflights_ignored_total{reason="busy"}')).toBe(1)
  })

  it('a newer early transcript replaces the prepared one; same words keep it; restarts are capped', async () => {
    const socket = await start(['preflight_min_interval_ms: 0', 'preflight_max_restarts: 1'])
    model.script([
      { text: '第一。', firstTokenDelayMs: 5000 },
      { text: '第二个回答。', firstTokenDelayMs: 100 },
    ])
    socket.send({ type: 'user_input', session: 'p', text: '我想', preflight: true })
    await expect.poll(() => model.requests.length, patience).toBe(1)
    socket.send({ type: 'user_input', session: 'p', text: '我想去', preflight: true })
    await expect.poll(() => model.requests.length, patience).toBe(2)
    await model.requests[0]!.closed
    expect(model.requests[0]!.closedEarly).toBe(true)
    // Same words as the prepared one: kept. Other words past the cap: ignored.
    socket.send({ type: 'user_input', session: 'p', text: '我想去。', preflight: true })
    socket.send({ type: 'user_input', session: 'p', text: '我想去北京', preflight: true })
    await expect.poll(() => metric('charpipe_preflights_ignored_total{reason="restarts"}'), patience).toBe(1)
    socket.send({ type: 'user_input', session: 'p', text: '我想去' })
    const frames = await socket.waitForTurn('p')
    expect(frames.at(-1)).toMatchObject({ text: '第二个回答。' })
    expect(model.requests).toHaveLength(2)
    expect(await metric('charpipe_preflights_total{outcome="replaced"}')).toBe(1)
    expect(await metric('charpipe_preflights_total{outcome="adopted"}')).toBe(1)
  })

  it('conversation.preflight: false ignores early transcripts', async () => {
    const socket = await start(['preflight: false'])
    model.script({ text: '好的。' })
    socket.send({ type: 'user_input', session: 'f', text: '你好', preflight: true })
    await expect.poll(() => metric('charpipe_preflights_ignored_total{reason="disabled"}'), patience).toBe(1)
    expect(model.requests).toHaveLength(0)
    socket.send({ type: 'user_input', session: 'f', text: '你好' })
    await socket.waitForTurn('f')
    expect(model.requests).toHaveLength(1)
  })

  it('a refused early transcript gets an error frame naming the problem', async () => {
    const socket = await start()
    socket.send({ type: 'user_input', session: 'e', text: '  ', preflight: true })
    const error = await socket.waitFor((frame) => frame.type === 'error')
    expect(error).toMatchObject({ code: 'bad_request', session: 'e' })
    expect(String(error.message)).toContain('text is empty')
    socket.send({ type: 'user_input', session: 'e', text: '你好', preflight: 'yes' })
    const second = await socket.waitFor((frame) => frame.type === 'error', socket.frames.indexOf(error) + 1)
    expect(String(second.message)).toContain('preflight')
  })
})

describe('preflight with characters', () => {
  it("an early transcript to a character is prepared with that character's persona and adopted", async () => {
    server = await startServerOverModel(model.url, [
      'characters:',
      '  alice:',
      '    name: Alice',
      '    persona: ALICE-PERSONA 一位画家',
      'memory:',
      '  enabled: false',
    ])
    client = await openTestSocket(`${server.url}/ws`)
    model.script({ text: '我画画。', firstTokenDelayMs: 100 })
    client.send({ type: 'user_input', session: 'ch', character: 'alice', text: '你做什么', preflight: true })
    await expect.poll(() => model.requests.length, patience).toBe(1)
    expect(JSON.stringify(model.requests[0]!.body)).toContain('ALICE-PERSONA')
    client.send({ type: 'user_input', session: 'ch', character: 'alice', text: '你做什么？' })
    const frames = await client.waitForTurn('ch')
    expect(frames.at(-1)).toMatchObject({ type: 'llm_done', text: '我画画。' })
    expect(model.requests).toHaveLength(1)
  })
})

describe('preflight limits', () => {
  it('early transcripts have their own turns_per_minute per connection', async () => {
    server = await startServerOverModel(model.url, [
      'server:',
      '  limits:',
      '    turns_per_minute: 2',
      'memory:',
      '  enabled: false',
    ])
    client = await openTestSocket(`${server.url}/ws`)
    model.script([
      { text: '一。', firstTokenDelayMs: 2000 },
      { text: '二。', firstTokenDelayMs: 2000 },
    ])
    for (const session of ['l1', 'l2', 'l3']) {
      client.send({ type: 'user_input', session, text: '你好', preflight: true })
    }
    const refused = await client.waitFor((frame) => frame.type === 'error')
    expect(refused).toMatchObject({ code: 'bad_request', session: 'l3' })
    expect(String(refused.message)).toContain('turns_per_minute')
    await expect.poll(() => model.requests.length, patience).toBe(2)
  })
})

describe('preflight with a tool call', () => {
  it('stops at the tool call until adopted; the tool runs once, after adoption', async () => {
    const calls: string[] = []
    let adopted = false
    const lookup: Tool<{ city: string }> = {
      name: 'lookup_weather',
      description: '查询城市天气',
      parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
      execute: ({ city }) => {
        calls.push(adopted ? city : `${city} (before the final input)`)
        return { city, sky: '晴' }
      },
    }
    server = await startTestServer({
      configText: [
        'llm:',
        '  provider: custom',
        `  base_url: ${model.url}/v1`,
        '  model: mock-model',
        '  max_retries: 0',
        'memory:',
        '  enabled: false',
        'storage:',
        `  sqlite_path: ${join('{folder}', 'charpipe.db')}`,
      ].join('\n'),
      createCharpipe: (config, logger) => createCharpipe(config, { logger, tools: [lookup as Tool] }),
    })
    client = await openTestSocket(`${server.url}/ws`)
    model.script([
      {
        toolCalls: [{ id: 'w1', name: 'lookup_weather', arguments: { city: '北京' } }],
        firstTokenDelayMs: 50,
      },
      { text: '北京今天晴。' },
    ])
    client.send({ type: 'user_input', session: 't', text: '北京天气', preflight: true })
    await expect.poll(() => model.requests.length, patience).toBe(1)
    await model.requests[0]!.closed
    // The model asked for the tool; the prepared turn waits there (a call before the final input
    // would be recorded as such, whenever it came).
    expect(calls).toEqual([])
    expect(model.requests).toHaveLength(1)
    expect(sessionFrames(client, 't')).toEqual([])

    adopted = true
    client.send({ type: 'user_input', session: 't', text: '北京天气？' })
    const frames = await client.waitForTurn('t')
    expect(calls).toEqual(['北京'])
    expect(model.requests).toHaveLength(2)
    expect(frames.map((frame) => frame.type).slice(0, 2)).toEqual(['tool_call', 'tool_result'])
    expect(frames.at(-1)).toMatchObject({ type: 'llm_done', text: '北京今天晴。' })
    expect(new Set(frames.map((frame) => frame.turn)).size).toBe(1)
    expect(await stored('t')).toEqual([
      { role: 'user', content: '北京天气？' },
      { role: 'assistant', content: '北京今天晴。' },
    ])
  })
})
