import OpenAI from 'openai'
import { afterEach, describe, expect, it } from 'vitest'
import { startTestServer, type TestServer } from './start-test-server.js'

let server: TestServer | undefined
afterEach(async () => {
  await server?.stop()
  server = undefined
})

const token = 'tok-models-0123456789abcdef'
const createClient = (apiKey: string) => new OpenAI({ baseURL: `${server!.url}/v1`, apiKey, maxRetries: 0 })

describe('GET /v1/models with the official openai client', () => {
  it('lists the character as a model, in the OpenAI list shape', async () => {
    server = await startTestServer({ configText: 'character:\n  name: 小狐\n' })
    const models = []
    for await (const model of createClient('unused').models.list()) models.push(model)
    expect(models).toEqual([
      {
        id: '小狐',
        object: 'model',
        created: expect.any(Number),
        owned_by: 'charpipe',
        name: '小狐',
        character: '小狐',
      },
    ])
    expect(Math.abs(models[0]!.created - Date.now() / 1000)).toBeLessThan(600)

    const body = await (await fetch(`${server.url}/v1/models`)).json()
    expect(body).toEqual({ object: 'list', data: models })
  })

  it('follows a renamed character at once', async () => {
    server = await startTestServer()
    const put = await fetch(`${server.url}/api/config`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ character: { name: 'Mika' } }),
    })
    expect(put.status).toBe(200)
    const page = await createClient('unused').models.list()
    expect(page.data.map((model) => model.id)).toEqual(['Mika'])
  })

  it('needs the same token as /v1/chat/completions', async () => {
    server = await startTestServer({ configText: `server:\n  token: ${token}\n` })
    await expect(createClient('wrong-token').models.list()).rejects.toMatchObject({ status: 401 })
    const completions = await fetch(`${server.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer wrong-token' },
      body: JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'hi' }] }),
    })
    expect(completions.status).toBe(401)
    const page = await createClient(token).models.list()
    expect(page.data).toHaveLength(1)
  })
})
