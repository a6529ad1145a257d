import { Hono } from 'hono'
import { describe, expect, it } from 'vitest'
import { checkOrigin } from './check-origin.js'
import { createSecurityPolicy } from './create-security-policy.js'

const policy = createSecurityPolicy({
  server: { host: '127.0.0.1', allowed_hosts: [], allowed_origins: ['https://app.example.com'] },
})
const app = new Hono()
app.use(
  '*',
  checkOrigin(() => policy),
)
app.all('*', (context) => context.text('ran'))

const send = (method: string, headers: Record<string, string>) =>
  app.request('http://placeholder/api/chat', { method, headers: { host: '127.0.0.1:8080', ...headers } })

describe('checkOrigin', () => {
  it.each([
    ['POST without Origin (a program)', 'POST', {}, 200],
    ['POST from the own page', 'POST', { origin: 'http://127.0.0.1:8080' }, 200],
    ['POST from the own page behind TLS', 'POST', { origin: 'https://127.0.0.1:8080' }, 200],
    ['POST from an allowed origin', 'POST', { origin: 'https://app.example.com' }, 200],
    ['POST from a foreign page', 'POST', { origin: 'https://evil.example' }, 403],
    ['POST from the same host on another port', 'POST', { origin: 'http://127.0.0.1:9999' }, 403],
    ['POST from localhost when served as 127.0.0.1', 'POST', { origin: 'http://localhost:8080' }, 403],
    ['PUT from a foreign page', 'PUT', { origin: 'https://evil.example' }, 403],
    ['DELETE from a foreign page', 'DELETE', { origin: 'https://evil.example' }, 403],
    ['a preflight from a foreign page', 'OPTIONS', { origin: 'https://evil.example' }, 403],
    ['POST from a sandboxed frame', 'POST', { origin: 'null' }, 403],
    ['GET from a foreign page (it cannot read the answer)', 'GET', { origin: 'https://evil.example' }, 200],
    [
      'a WebSocket upgrade from a foreign page',
      'GET',
      { origin: 'https://evil.example', upgrade: 'websocket' },
      403,
    ],
    [
      'a WebSocket upgrade from the own page',
      'GET',
      { origin: 'http://127.0.0.1:8080', upgrade: 'websocket' },
      200,
    ],
    ['a WebSocket upgrade without Origin', 'GET', { upgrade: 'websocket' }, 200],
  ])('%s → %i', async (_name, method, headers, status) => {
    const response = await send(method, headers)
    expect(response.status).toBe(status)
    if (status === 403) {
      const body = (await response.json()) as { error: { code: string; message: string } }
      expect(body.error).toMatchObject({ code: 'forbidden' })
      expect(body.error.message).toContain('server.allowed_origins')
    }
  })
})
