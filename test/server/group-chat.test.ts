import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { type MockModelServer, startMockModelServer } from '../../src/testing/index.js'
import { readSse } from './read-sse.js'
import { startServerOverModel, type TestServer } from './start-test-server.js'
import { openTestSocket } from './websocket-client.js'

let model: MockModelServer
let server: TestServer | undefined

beforeAll(async () => {
  model = await startMockModelServer()
})
afterAll(() => model.close())
afterEach(async () => {
  await server?.stop()
  server = undefined
  model.reset()
})

const start = async () => {
  server = await startServerOverModel(model.url, ['character:', '  reply_format: json'])
  return server
}

type Body = { messages: { role: string; content: unknown }[] }
const lastUserOf = (index: number) =>
  (model.requests[index]!.body as Body).messages.filter((message) => message.role === 'user').at(-1)!.content

const postJson = (path: string, body: unknown) =>
  fetch(`${server!.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })

describe('group chat over the server', () => {
  it('reply_images on the wire (WebSocket and /api/chat) reach the model as images being replied to', async () => {
    await start()
    const image = 'https://example.com/meme.png'
    model.script({ text: '{"emotion":"开心","text":"哈哈。"}' })
    const client = await openTestSocket(`${server!.url}/ws`)
    client.send({ type: 'user_input', session: 'wire', text: '这个', reply_images: [image] })
    await client.waitForTurn('wire')
    await client.close()
    model.script({ text: '{"emotion":"开心","text":"好。"}' })
    await readSse(await postJson('/api/chat', { session: 'wire-http', text: '那个', reply_images: [image] }))
    expect(model.requests).toHaveLength(2)
    for (const index of [0, 1]) expect(JSON.stringify(lastUserOf(index))).toContain('回复图片')
  })
  it('WebSocket: observe frames reach the model before the next user_input, with speakers', async () => {
    await start()
    model.script({ text: '{"emotion":"开心","text":"大家好。"}' })
    const client = await openTestSocket(`${server!.url}/ws`)
    client.send({ type: 'observe', session: 'qq', speaker: { id: '111', name: '小红' }, text: '来了来了' })
    client.send({ type: 'observe', session: 'qq', speaker: { id: '222' }, text: '+1' })
    client.send({ type: 'user_input', session: 'qq', text: '你好', speaker: { id: '123456', name: '用户' } })
    const events = await client.waitForTurn('qq')
    await client.close()
    expect(events.filter((event) => event.type === 'error')).toEqual([])
    expect(lastUserOf(0)).toBe(
      '[群聊记录]\n小红(111): 来了来了\n222(222): +1\n[当前消息]\n用户(123456): 你好',
    )
  })

  it('WebSocket: a bad speaker is a bad_request naming the field, and nothing is observed', async () => {
    await start()
    const client = await openTestSocket(`${server!.url}/ws`)
    client.send({ type: 'observe', session: 'qq', speaker: { id: '' }, text: 'x' })
    const error = await client.waitFor((frame) => frame.type === 'error')
    expect(error).toMatchObject({ code: 'bad_request' })
    expect(String(error.message)).toMatch(/observe frame: speaker\.id/)
    client.send({ type: 'user_input', session: 'qq', text: 'x', speaker: { id: 'a', name: 1 } })
    const second = await client.waitFor((frame) => frame.type === 'error' && frame !== error)
    expect(String(second.message)).toMatch(/user_input frame: speaker\.name/)
    await client.close()
    expect(model.requests).toHaveLength(0)
  })

  it('HTTP: POST /api/sessions/:id/observe answers 201 {id}; /api/chat takes speaker', async () => {
    await start()
    model.script({ text: '{"emotion":"平静","text":"好。"}' })
    const observed = await postJson('/api/sessions/room/observe', {
      speaker: { id: '7', name: '阿七' },
      text: '我先走了',
    })
    expect(observed.status).toBe(201)
    expect((await observed.json()).id).toMatch(/\S/)
    const bad = await postJson('/api/sessions/room/observe', { text: '没有说话人' })
    expect(bad.status).toBe(400)
    expect(JSON.stringify(await bad.json())).toMatch(/speaker/)
    const reply = await postJson('/api/chat', {
      session: 'room',
      text: '拜拜',
      speaker: { id: '8', name: '阿八' },
    })
    await readSse(reply)
    expect(lastUserOf(0)).toBe('[群聊记录]\n阿七(7): 我先走了\n[当前消息]\n阿八(8): 拜拜')
    const preview = await postJson('/api/preview', { session: 'room', text: '还在吗', speaker: { id: '8' } })
    const messages = (await preview.json()).messages as { role: string; content: unknown }[]
    expect(messages.at(-1)).toMatchObject({ role: 'user', content: '[当前消息]\n8(8): 还在吗' })
    const history = await (await fetch(`${server!.url}/api/sessions/room/messages`)).json()
    expect(history.messages[0].content).toBe('[群聊记录]\n阿七(7): 我先走了\n[当前消息]\n阿八(8): 拜拜')
  })
})
