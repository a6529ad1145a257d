/**
 * Whole turns through the real stages (context pipeline, providers, reply parser, stores) against
 * the mock model server, for every provider type.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import type { CharpipeConfigInput } from '../../src/config/schema.js'
import { createCharpipe } from '../../src/engine/index.js'
import { makeConfig } from '../../src/testing/create-turn-harness.js'
import type { MockModelServer } from '../../src/testing/index.js'
import { startMockModelServer } from '../../src/testing/index.js'
import { collectEvents, doneOf, sentencesOf, typesOf, watchEvents } from '../../src/testing/turn-events.js'
import type { Tool } from '../../src/tools/index.js'

let server: MockModelServer
let folder: string

beforeAll(async () => {
  server = await startMockModelServer()
  folder = mkdtempSync(join(tmpdir(), 'charpipe-engine-'))
})
afterAll(async () => {
  await server.close()
  rmSync(folder, { recursive: true, force: true })
})
beforeEach(() => server.reset())

const providerConfigs: Record<string, () => CharpipeConfigInput> = {
  'openai-compatible': () => ({
    llm: { provider: 'custom', base_url: `${server.url}/v1`, model: 'm', max_retries: 0 },
  }),
  anthropic: () => ({
    llm: {
      provider: 'anthropic',
      base_url: server.url,
      api_key: 'sk-ant-test-0000',
      model: 'claude',
      max_retries: 0,
    },
  }),
  openclaw: () => ({ llm: { provider: 'openclaw', max_retries: 0 }, openclaw: { url: server.url } }),
}

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number }
      probe.close(() => resolve(port))
    })
  })
}

describe.each(Object.entries(providerConfigs))('a whole turn with provider %s', (name, configOf) => {
  it('streams sentences with the emotion and stores the turn', async () => {
    server.script({ text: '{"emotion": "开心", "text": "你好呀～今天过得怎么样？"}', chunkSize: 4 })
    const charpipe = await createCharpipe(makeConfig(configOf()))
    const events = await collectEvents(charpipe.generate({ text: '嗨', session: 'p' }))
    expect(sentencesOf(events)).toEqual(['你好呀～今天过得怎么样？'])
    expect(events.find((event) => event.type === 'llm_sentence')).toMatchObject({ emotion: '开心' })
    expect(doneOf(events)).toMatchObject({
      text: '你好呀～今天过得怎么样？',
      emotion: '开心',
      interrupted: false,
    })
    const stored = await charpipe.sessions.history({ session: 'p' })
    expect(stored.map((message) => [message.role, message.content, message.emotion])).toEqual([
      ['user', '嗨', undefined],
      ['assistant', '你好呀～今天过得怎么样？', '开心'],
    ])
    await charpipe.close()
  })

  it('ends an upstream failure with llm_error then one llm_done', async () => {
    server.script({ status: 500, body: { error: { message: 'exploded' } } })
    const charpipe = await createCharpipe(makeConfig(configOf()))
    const events = await collectEvents(charpipe.generate({ text: '嗨' }))
    expect(typesOf(events)).toEqual(['llm_error', 'llm_done'])
    expect(events[0]).toMatchObject({ code: 'upstream_http', status: 500 })
    await charpipe.close()
  })

  it('a failed turn then a good one: the model sees alternating roles; the failed message stays stored, marked', async () => {
    server.script([
      { text: '{"emotion": "开心", "text": "你好！"}' },
      { status: 500, body: { error: { message: 'exploded' } } },
      { text: '{"emotion": "平静", "text": "在的。"}' },
    ])
    const charpipe = await createCharpipe(makeConfig(configOf()))
    await collectEvents(charpipe.generate({ text: '嗨', session: 'f' }))
    const failed = await collectEvents(charpipe.generate({ text: '第一次问', session: 'f' }))
    expect(typesOf(failed)).toEqual(['llm_error', 'llm_done'])
    await collectEvents(charpipe.generate({ text: '还在吗', session: 'f' }))

    const body = server.requests[2]!.body as { messages: { role: string; content: unknown }[] }
    const roles = body.messages.map((message) => message.role).filter((role) => role !== 'system')
    // OpenClaw's gateway keeps its own history: only the new input goes to it.
    expect(roles).toEqual(name === 'openclaw' ? ['user'] : ['user', 'assistant', 'user'])
    expect(JSON.stringify(body.messages)).not.toContain('第一次问')
    const stored = await charpipe.sessions.history({ session: 'f' })
    expect(stored.map((message) => [message.role, message.content, message.failed])).toEqual([
      ['user', '嗨', undefined],
      ['assistant', '你好！', undefined],
      ['user', '第一次问', true],
      ['user', '还在吗', undefined],
      ['assistant', '在的。', undefined],
    ])
    await charpipe.close()
  })

  it('a connection cut right after some chunks keeps what arrived, then upstream_stream', async () => {
    // Events before the cut: the role chunk (OpenAI, OpenClaw) or message_start and
    // content_block_start (Anthropic), then both sentences.
    const eventsBeforeText = name === 'anthropic' ? 2 : 1
    server.script({ text: '第一句。第二句。', chunkSize: 4, breakAfterChunks: eventsBeforeText + 2 })
    const base = configOf()
    // Retries allowed, yet none happens once text was passed on.
    const charpipe = await createCharpipe(makeConfig({ ...base, llm: { ...base.llm, max_retries: 2 } }))
    const events = await collectEvents(charpipe.generate({ text: '嗨' }))
    // Both sentences arrived whole before the cut (early release speaks the second at once).
    expect(sentencesOf(events)).toEqual(['第一句。', '第二句。'])
    expect(typesOf(events).slice(-2)).toEqual(['llm_error', 'llm_done'])
    expect(events.at(-2)).toMatchObject({ code: 'upstream_stream' })
    expect(server.requests).toHaveLength(1)
    await charpipe.close()
  })

  it('interrupt aborts the upstream request and stores what was spoken', async () => {
    server.script({ text: '第一句。第二句。第三句。', chunkSize: 4, delayMs: 200 })
    const charpipe = await createCharpipe(makeConfig(configOf()))
    const watch = watchEvents(charpipe.generate({ text: '讲' }))
    await watch.until('llm_sentence')
    await charpipe.interrupt('default')
    const events = await watch.finished
    expect(doneOf(events).interrupted).toBe(true)
    const request = server.requests.at(-1)!
    await request.closed
    expect(request.closedEarly).toBe(true)
    expect((await charpipe.sessions.history({ session: 'default' }))[1]).toMatchObject({
      content: '第一句。',
      interrupted: true,
    })
    await charpipe.close()
  })
})

describe('whole turns: more', () => {
  it('the builtin mock provider answers without a server of ours', async () => {
    const charpipe = await createCharpipe(makeConfig())
    const events = await collectEvents(charpipe.generate({ text: '你好' }))
    expect(sentencesOf(events).length).toBeGreaterThan(0)
    expect(doneOf(events).interrupted).toBe(false)
    await charpipe.close()
  })

  it('reports a refused connection as upstream_unreachable', async () => {
    const port = await freePort()
    const config = makeConfig({
      llm: { provider: 'custom', base_url: `http://127.0.0.1:${port}/v1`, max_retries: 0 },
    })
    const charpipe = await createCharpipe(config)
    const events = await collectEvents(charpipe.generate({ text: '嗨' }))
    expect(typesOf(events)).toEqual(['llm_error', 'llm_done'])
    expect(events[0]).toMatchObject({ code: 'upstream_unreachable' })
    await charpipe.close()
  })

  it('a stream cut midway keeps what was said and ends with upstream_stream', async () => {
    server.script({ text: '第一句。第二句。', chunkSize: 4, breakAfterChunks: 3 })
    const charpipe = await createCharpipe(makeConfig(providerConfigs['openai-compatible']!()))
    const events = await collectEvents(charpipe.generate({ text: '嗨' }))
    // Both sentences arrived whole before the cut (early release speaks the second at once).
    expect(sentencesOf(events)).toEqual(['第一句。', '第二句。'])
    expect(typesOf(events).slice(-2)).toEqual(['llm_error', 'llm_done'])
    expect(events.at(-2)).toMatchObject({ code: 'upstream_stream' })
    await charpipe.close()
  })

  it('runs sessions concurrently against one server', async () => {
    const charpipe = await createCharpipe(makeConfig(providerConfigs['openai-compatible']!()))
    const reply = (text: string) => `[[mock-reply:${JSON.stringify({ text, chunkSize: 2, delayMs: 5 })}]]`
    const results = await Promise.all(
      ['a', 'b', 'c'].map((session) =>
        collectEvents(charpipe.generate({ text: reply(`会话${session}。`), session })),
      ),
    )
    expect(results.map((events) => doneOf(events).text)).toEqual(['会话a。', '会话b。', '会话c。'])
    await charpipe.close()
  })

  it('switches provider on reload for the next turn and keeps the history (SQLite)', async () => {
    const storage = { sqlite_path: join(folder, 'reload.db') }
    const charpipe = await createCharpipe(
      makeConfig({ ...providerConfigs['openai-compatible']!(), history: { store: 'sqlite' }, storage }),
    )
    server.script([{ text: '来自OpenAI。' }, { text: '来自Anthropic。' }])
    await collectEvents(charpipe.generate({ text: '一' }))
    await charpipe.reload(
      makeConfig({ ...providerConfigs.anthropic!(), history: { store: 'sqlite' }, storage }),
    )
    const events = await collectEvents(charpipe.generate({ text: '二' }))
    expect(doneOf(events).text).toBe('来自Anthropic。')
    expect(server.requests.map((request) => request.path)).toEqual(['/v1/chat/completions', '/v1/messages'])
    const anthropicBody = server.requests[1]!.body as { messages: { content: unknown }[] }
    expect(JSON.stringify(anthropicBody.messages)).toContain('来自OpenAI。')
    expect(
      (await charpipe.sessions.history({ session: 'default' })).map((message) => message.content),
    ).toEqual(['一', '来自OpenAI。', '二', '来自Anthropic。'])
    await charpipe.close()
  })

  it('stores turns in long-term memory when enabled', async () => {
    const config = makeConfig({
      ...providerConfigs['openai-compatible']!(),
      memory: { enabled: true },
      storage: { sqlite_path: join(folder, 'memory.db') },
    })
    server.script({ text: '我记住了，你喜欢蓝色。' })
    const charpipe = await createCharpipe(config)
    await collectEvents(charpipe.generate({ text: '我最喜欢的颜色是蓝色', session: 'm' }))
    // The memory is written after the turn, off its session's lane.
    await expect
      .poll(async () => (await charpipe.memory!.search('喜欢什么颜色', { scope: 'm', k: 3 }))[0]?.text)
      .toContain('蓝色')
    await charpipe.close()
  })
})

describe('whole turns with tools', () => {
  const clock: Tool = {
    name: 'clock',
    description: '现在几点',
    parameters: { type: 'object', properties: {} },
    execute: () => ({ time: '10:30' }),
  }

  it('native tool calls through the OpenAI-compatible provider', async () => {
    server.script([{ toolCalls: [{ id: 'call_1', name: 'clock', arguments: {} }] }, { text: '现在十点半。' }])
    const charpipe = await createCharpipe(makeConfig(providerConfigs['openai-compatible']!()), {
      tools: [clock],
    })
    const events = await collectEvents(charpipe.generate({ text: '几点了？' }))
    expect(typesOf(events).slice(0, 2)).toEqual(['tool_call', 'tool_result'])
    expect(events[1]).toMatchObject({ result: { time: '10:30' } })
    expect(doneOf(events).text).toBe('现在十点半。')
    const second = server.requests[1]!.body as { messages: { role: string }[]; tools?: unknown[] }
    expect(second.messages.map((message) => message.role).slice(-2)).toEqual(['assistant', 'tool'])
    await charpipe.close()
  })

  it('native tool calls through the Anthropic provider', async () => {
    server.script([{ toolCalls: [{ id: 'toolu_1', name: 'clock', arguments: {} }] }, { text: '十点半啦。' }])
    const charpipe = await createCharpipe(makeConfig(providerConfigs.anthropic!()), { tools: [clock] })
    const events = await collectEvents(charpipe.generate({ text: '几点了？' }))
    expect(events.find((event) => event.type === 'tool_result')).toMatchObject({ id: 'toolu_1' })
    expect(doneOf(events).text).toBe('十点半啦。')
    await charpipe.close()
  })

  it('prompt-described tools when function calling is off', async () => {
    server.script([
      { text: '{"tool_call": {"name": "clock", "arguments": {}}}', chunkSize: 5 },
      { text: '十点半。' },
    ])
    const base = providerConfigs['openai-compatible']!()
    const config = makeConfig({ ...base, llm: { ...base.llm, function_calling: false } })
    const charpipe = await createCharpipe(config, { tools: [clock] })
    const events = await collectEvents(charpipe.generate({ text: '几点了？' }))
    expect(typesOf(events).slice(0, 2)).toEqual(['tool_call', 'tool_result'])
    expect(doneOf(events).text).toBe('十点半。')
    const first = server.requests[0]!.body as { tools?: unknown; messages: { content: string }[] }
    expect(first.tools).toBeUndefined()
    expect(first.messages[0]!.content).toContain('clock')
    await charpipe.close()
  })
})
