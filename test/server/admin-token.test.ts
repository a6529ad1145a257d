/**
 * `server.admin_token`: a chat client holding `server.token` chats and reads sessions, and is
 * refused everything administrative; the admin token does both; without an admin token the one
 * token does both (auth.test.ts).
 */
import { afterEach, describe, expect, it } from 'vitest'
import { startTestServer, type TestServer } from './start-test-server.js'
import { openTestSocket } from './websocket-client.js'

let server: TestServer | undefined
afterEach(async () => {
  await server?.stop()
  server = undefined
})

const chatToken = 'chat-token-0123456789abcdef'
const adminToken = 'admin-token-0123456789abcdef'
const configText = `server:\n  token: ${chatToken}\n  admin_token: ${adminToken}\n`

const call = (method: string, path: string, token: string | undefined, body?: unknown) =>
  fetch(`${server!.url}${path}`, {
    method,
    headers: {
      'content-type': 'application/json',
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  })

const adminCalls: { method: string; path: string; body?: unknown }[] = [
  { method: 'GET', path: '/api/config' },
  { method: 'PUT', path: '/api/config', body: { character: { name: 'x' } } },
  { method: 'POST', path: '/api/doctor', body: {} },
  { method: 'POST', path: '/api/preview', body: { text: 'hi' } },
  { method: 'GET', path: '/api/processors' },
  { method: 'GET', path: '/api/tools' },
  { method: 'POST', path: '/api/memory', body: { text: 'planted' } },
  { method: 'GET', path: '/api/memory?scope=default' },
  { method: 'POST', path: '/api/kb', body: { name: 'a', text: 'b' } },
  { method: 'DELETE', path: '/api/sessions/default' },
  { method: 'GET', path: '/metrics' },
]

const chatCalls: { method: string; path: string; body?: unknown }[] = [
  { method: 'POST', path: '/api/chat', body: { text: 'hi' } },
  { method: 'POST', path: '/v1/chat/completions', body: { messages: [{ role: 'user', content: 'hi' }] } },
  { method: 'GET', path: '/v1/models' },
  { method: 'GET', path: '/api/sessions/default/messages' },
]

describe('server.admin_token', () => {
  it.each(adminCalls)(
    '$method $path: the chat token is refused (401), the admin token works',
    async (item) => {
      server = await startTestServer({ configText })
      const refused = await call(item.method, item.path, chatToken, item.body)
      expect(refused.status).toBe(401)
      expect((await refused.json()).error.message).toContain('server.admin_token')
      const allowed = await call(item.method, item.path, adminToken, item.body)
      expect(allowed.status).toBeLessThan(300)
    },
  )

  it.each(chatCalls)(
    '$method $path: the chat token and the admin token both work, none does not',
    async (item) => {
      server = await startTestServer({ configText })
      expect((await call(item.method, item.path, undefined, item.body)).status).toBe(401)
      expect((await call(item.method, item.path, chatToken, item.body)).status).toBe(200)
      expect((await call(item.method, item.path, adminToken, item.body)).status).toBe(200)
    },
  )

  it('the WebSocket takes either token, and no other', async () => {
    server = await startTestServer({ configText })
    for (const token of [chatToken, adminToken]) {
      const client = await openTestSocket(`${server.url}/ws?token=${token}`)
      client.send({ type: 'user_input', session: 'w', text: 'hi' })
      await client.waitForTurn('w')
      await client.close()
    }
    await expect(openTestSocket(`${server.url}/ws?token=wrong`)).rejects.toThrow('401')
  })

  it('the admin token is masked in GET /api/config and cannot be read with the chat token', async () => {
    server = await startTestServer({ configText })
    const config = await (await call('GET', '/api/config', adminToken)).json()
    expect(config.server.admin_token).toBe('***')
    expect(config.server.token).toBe('***')
  })

  it('with only an admin token, chat stays open and administration needs it', async () => {
    server = await startTestServer({ configText: `server:\n  admin_token: ${adminToken}\n` })
    expect((await call('POST', '/api/chat', undefined, { text: 'hi' })).status).toBe(200)
    expect((await call('GET', '/api/config', undefined)).status).toBe(401)
    expect((await call('GET', '/api/config', adminToken)).status).toBe(200)
  })
})
