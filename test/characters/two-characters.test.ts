/**
 * Two characters served by one server over the real engine and the mock model server: each turn's
 * prompt carries its own character's persona, history and memories and never the other's, over the
 * WebSocket and over `/v1` with the official openai client; a greeting opens a new session.
 */
import OpenAI from 'openai'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { type MockModelServer, startMockModelServer } from '../../src/testing/index.js'
import { startServerOverModel, type TestServer } from '../server/start-test-server.js'
import { openTestSocket } from '../server/websocket-client.js'

let model: MockModelServer
let server: TestServer | undefined

beforeAll(async () => {
  model = await startMockModelServer()
})
afterAll(async () => {
  await model.close()
})
afterEach(async () => {
  await server?.stop()
  server = undefined
  model.reset()
})

const charactersYaml = [
  'character:',
  '  name: 小助手',
  '  persona: 默认角色的设定',
  'history:',
  '  max_turns: 1',
  'characters:',
  '  alice:',
  '    name: Alice',
  '    persona: ALICE-PERSONA 一位画家',
  '    greeting: "你好，{{user}}！我是{{char}}。"',
  '    user_name: 旅人',
  '  bob:',
  '    name: Bob',
  '    persona: BOB-PERSONA 一位水手',
]

/** Every message text of the model request number `index`, joined. */
const promptOf = (index: number): string => {
  const body = model.requests[index]!.body as { messages: { content: unknown }[] }
  return body.messages.map((message) => JSON.stringify(message.content)).join('\n')
}

const historyOf = async (session: string, character?: string) => {
  const query = character ? `?character=${character}` : ''
  const response = await fetch(`${server!.url}/api/sessions/${session}/messages${query}`)
  const body = (await response.json()) as { messages: { role: string; content: string }[] }
  return body.messages.map((message) => `${message.role}:${message.content}`)
}

describe('two characters on one server', () => {
  it('keeps history and memory apart over the WebSocket, and a greeting opens the new session', async () => {
    server = await startServerOverModel(model.url, charactersYaml)
    const client = await openTestSocket(`${server.url}/ws`)
    const say = async (character: string, text: string) => {
      const from = client.frames.length
      client.send({ type: 'user_input', session: 'room', character, text })
      return client.waitForTurn('room', from)
    }

    const first = await say('alice', '我最喜欢的水果是榴莲')
    expect(first[0]).toMatchObject({ type: 'greeting', text: '你好，旅人！我是Alice。' })
    expect(first.at(-1)).toMatchObject({ type: 'llm_done' })
    await say('alice', '今天天气不错')
    await say('alice', '你还记得我最喜欢的水果吗')
    const bob = await say('bob', '你还记得我最喜欢的水果吗')
    expect(bob.some((event) => event.type === 'greeting')).toBe(false)

    expect(model.requests).toHaveLength(4)
    // Alice's third turn: her persona, the last turn as history, the first as a memory.
    const aliceAsks = promptOf(2)
    expect(aliceAsks).toContain('ALICE-PERSONA')
    expect(aliceAsks).toContain('今天天气不错')
    expect(aliceAsks).toContain('榴莲')
    expect(aliceAsks).not.toContain('BOB-PERSONA')
    // Bob, in the same session id: his persona, and nothing of Alice's conversation or memories.
    const bobAsks = promptOf(3)
    expect(bobAsks).toContain('BOB-PERSONA')
    expect(bobAsks).not.toContain('ALICE-PERSONA')
    expect(bobAsks).not.toContain('榴莲')
    expect(bobAsks).not.toContain('今天天气不错')

    const alice = await historyOf('room', 'alice')
    expect(alice[0]).toBe('assistant:你好，旅人！我是Alice。')
    expect(alice.slice(1).filter((line) => line.startsWith('user:'))).toEqual([
      'user:我最喜欢的水果是榴莲',
      'user:今天天气不错',
      'user:你还记得我最喜欢的水果吗',
    ])
    expect((await historyOf('room', 'bob')).filter((line) => line.startsWith('user:'))).toEqual([
      'user:你还记得我最喜欢的水果吗',
    ])
    expect(await historyOf('room')).toEqual([])
    await client.close()
  })

  it('opens a session with the open frame: the greeting once, stored first', async () => {
    server = await startServerOverModel(model.url, charactersYaml)
    const client = await openTestSocket(`${server.url}/ws`)
    client.send({ type: 'open', session: 'fresh', character: 'alice' })
    const opened = await client.waitFor((frame) => frame.type === 'opened')
    expect(opened).toMatchObject({
      session: 'fresh',
      character: 'alice',
      greeting: { text: '你好，旅人！我是Alice。' },
    })
    const from = client.frames.length
    client.send({ type: 'open', session: 'fresh', character: 'alice' })
    expect(await client.waitFor((frame) => frame.type === 'opened', from)).toMatchObject({ greeting: null })
    const turnFrom = client.frames.length
    client.send({ type: 'user_input', session: 'fresh', character: 'alice', text: '你好' })
    const turn = await client.waitForTurn('fresh', turnFrom)
    expect(turn.some((event) => event.type === 'greeting')).toBe(false)
    // The model sees the greeting as the character's first reply, before the user's words.
    const body = model.requests[0]!.body as { messages: { role: string; content: string }[] }
    const roles = body.messages.filter((message) => message.role !== 'system')
    expect(roles.at(-2)).toMatchObject({ role: 'assistant' })
    expect(roles.at(-2)!.content).toContain('你好，旅人！我是Alice。')
    expect(roles.at(-1)!.content).toContain('你好')
    // Bob has no greeting: opening his session stores nothing.
    const bobFrom = client.frames.length
    client.send({ type: 'open', session: 'fresh', character: 'bob' })
    expect(await client.waitFor((frame) => frame.type === 'opened', bobFrom)).toMatchObject({
      greeting: null,
    })
    expect(await historyOf('fresh', 'bob')).toEqual([])
    await client.close()

    // The same over HTTP, for clients of POST /api/chat.
    const open = (session: string, body: unknown) =>
      fetch(`${server!.url}/api/sessions/${session}/open`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      })
    const first = await open('http-fresh', { character: 'alice' })
    expect(await first.json()).toMatchObject({
      session: 'http-fresh',
      character: 'alice',
      greeting: { text: '你好，旅人！我是Alice。' },
    })
    expect(await (await open('http-fresh', { character: 'alice' })).json()).toMatchObject({ greeting: null })
    const unknown = await open('http-fresh', { character: 'carol' })
    expect(unknown.status).toBe(400)
    expect((await unknown.json()).error.message).toContain('character "carol" is not configured')
  })

  it('refuses an unknown character, naming it and the known ones', async () => {
    server = await startServerOverModel(model.url, charactersYaml)
    const client = await openTestSocket(`${server.url}/ws`)
    client.send({ type: 'user_input', session: 'x', character: 'carol', text: '你好' })
    const turn = await client.waitForTurn('x')
    const error = turn.find((event) => event.type === 'llm_error')
    expect(error).toMatchObject({ code: 'bad_request' })
    expect(error!.message).toBe(
      'character "carol" is not configured; known characters: "小助手", "alice", "bob"',
    )
    expect(model.requests).toHaveLength(0)
    await client.close()
  })

  it('serves each character as a model to the official openai client, with separate histories', async () => {
    server = await startServerOverModel(model.url, charactersYaml)
    const client = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: 'unused', maxRetries: 0 })
    const models = await client.models.list()
    expect(models.data.map((entry) => entry.id)).toEqual(['小助手', 'alice', 'bob'])

    const ask = (modelId: string, content: string) =>
      client.chat.completions.create({ model: modelId, messages: [{ role: 'user', content }], user: 'u1' })
    // Both at once, in one session id: neither interrupts the other.
    const [alice, bob] = await Promise.all([ask('alice', '我养了一只猫叫咪咪'), ask('bob', '我有一条船')])
    expect(alice.model).toBe('alice')
    expect(alice.choices[0]!.message.content).toContain('我养了一只猫叫咪咪')
    expect(bob.choices[0]!.message.content).toContain('我有一条船')
    await ask('bob', '我的猫叫什么')
    const bobPrompt = promptOf(2)
    expect(bobPrompt).toContain('BOB-PERSONA')
    expect(bobPrompt).toContain('我有一条船')
    expect(bobPrompt).not.toContain('咪咪')
    await ask('小助手', '你是谁')
    expect(promptOf(3)).toContain('默认角色的设定')
    expect(promptOf(3)).not.toContain('咪咪')

    expect((await historyOf('u1', 'bob')).filter((line) => line.startsWith('user:'))).toEqual([
      'user:我有一条船',
      'user:我的猫叫什么',
    ])
    expect(await historyOf('u1')).toEqual(['user:你是谁', expect.stringMatching(/^assistant:/)])

    const refused = await ask('carol', 'hi').catch((error: unknown) => error)
    expect(refused).toBeInstanceOf(OpenAI.BadRequestError)
    expect((refused as Error).message).toContain('character "carol" is not configured')
  })
})
