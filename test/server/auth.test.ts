import { afterEach, describe, expect, it } from 'vitest'
import { startTestServer, type TestServer } from './start-test-server.js'
import { openTestSocket } from './websocket-client.js'

let server: TestServer | undefined
afterEach(async () => {
  await server?.stop()
  server = undefined
})

const token = 'tok-test-0123456789abcdef'
const protectedCalls: { method: string; path: string; body?: unknown }[] = [
  { method: 'GET', path: '/api/config' },
  { method: 'PUT', path: '/api/config', body: { character: { name: 'x' } } },
  { method: 'POST', path: '/api/chat', body: { text: 'hi' } },
  { method: 'POST', path: '/api/preview', body: { text: 'hi' } },
  { method: 'GET', path: '/api/processors' },
  { method: 'GET', path: '/api/providers' },
  { method: 'POST', path: '/api/doctor', body: {} },
  { method: 'GET', path: '/api/sessions/default/messages' },
  { method: 'DELETE', path: '/api/sessions/default' },
  { method: 'GET', path: '/api/memory?scope=default' },
  { method: 'GET', path: '/api/memory/search?q=x' },
  { method: 'POST', path: '/api/kb', body: { name: 'a', text: 'b' } },
  { method: 'POST', path: '/v1/chat/completions', body: { messages: [{ role: 'user', content: 'hi' }] } },
  { method: 'GET', path: '/metrics' },
]

const call = (path: string, method: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${server!.url}${path}`, {
    method,
    headers: { 'content-type': 'application/json', ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  })

describe('auth with server.token', () => {
  it.each(protectedCalls)(
    '$method $path answers 401 without the token and works with it',
    async ({ method, path, body }) => {
      server = await startTestServer({ configText: `server:\n  token: ${token}\n` })
      const without = await call(path, method, body)
      expect(without.status).toBe(401)
      expect(((await without.json()) as { error: { code: string } }).error.code).toBe('unauthorized')
      const wrong = await call(path, method, body, { authorization: 'Bearer wrong-token' })
      expect(wrong.status).toBe(401)
      await wrong.text()
      const right = await call(path, method, body, { authorization: `Bearer ${token}` })
      expect(right.status).toBeLessThan(400)
      await right.text()
    },
  )

  it('keeps /healthz open', async () => {
    server = await startTestServer({ configText: `server:\n  token: ${token}\n` })
    expect(await (await fetch(`${server.url}/healthz`)).json()).toEqual({ ok: true })
  })

  it('requires the token on the WebSocket, as a header or ?token=', async () => {
    server = await startTestServer({ configText: `server:\n  token: ${token}\n` })
    await expect(openTestSocket(`${server.url}/ws`)).rejects.toThrow(/401/)
    await expect(openTestSocket(`${server.url}/ws?token=nope`)).rejects.toThrow(/401/)
    for (const client of [
      await openTestSocket(`${server.url}/ws`, { authorization: `Bearer ${token}` }),
      await openTestSocket(`${server.url}/ws?token=${token}`),
    ]) {
      client.send({ type: 'user_input', text: 'hi' })
      expect((await client.waitForTurn('default')).at(-1)!.type).toBe('llm_done')
      await client.close()
    }
  })

  it('never takes ?token= on plain HTTP routes, only on the WebSocket upgrade', async () => {
    server = await startTestServer({ configText: `server:\n  token: ${token}\n` })
    for (const path of ['/api/config', '/v1/models', '/metrics', '/api/sessions/default/messages']) {
      const response = await call(`${path}?token=${token}`, 'GET', undefined)
      expect(response.status).toBe(401)
      const body = (await response.json()) as { error: { message: string } }
      expect(body.error.message).not.toContain('?token=')
    }
    const posted = await call(`/api/chat?token=${token}`, 'POST', { text: 'hi' })
    expect(posted.status).toBe(401)
    await posted.text()
  })

  it('applies a token set through PUT /api/config at once', async () => {
    server = await startTestServer()
    const response = await call('/api/config', 'PUT', { server: { token } })
    expect(response.status).toBe(200)
    expect((await response.json()).server.token).toBe('***')
    expect((await call('/api/config', 'GET', undefined)).status).toBe(401)
    expect((await call('/api/config', 'GET', undefined, { authorization: `Bearer ${token}` })).status).toBe(
      200,
    )
  })
})

describe('auth off (no token)', () => {
  it('answers API and WebSocket calls without a token', async () => {
    server = await startTestServer()
    expect((await call('/api/config', 'GET', undefined)).status).toBe(200)
    const client = await openTestSocket(`${server.url}/ws`)
    client.send({ type: 'user_input', text: 'hi' })
    expect((await client.waitForTurn('default')).at(-1)!.type).toBe('llm_done')
    await client.close()
  })
})
