import { Hono } from 'hono'
import { describe, expect, it } from 'vitest'
import { checkOrigin } from './check-origin.js'
import { createSecurityPolicy } from './create-security-policy.js'
import { grantCors } from './grant-cors.js'

const policy = createSecurityPolicy({
  server: { host: '127.0.0.1', allowed_hosts: [], allowed_origins: ['https://app.example.com'] },
})
const app = new Hono()
app.use(
  '*',
  checkOrigin(() => policy),
)
app.use(
  '*',
  grantCors(() => policy),
)
app.all('/api/chat', (context) => context.json({ ran: true }))

const send = (method: string, headers: Record<string, string>) =>
  app.request('http://placeholder/api/chat', { method, headers: { host: '127.0.0.1:8080', ...headers } })

describe('grantCors', () => {
  it('answers the preflight of an allowed origin with what the API uses, and nothing else', async () => {
    const response = await send('OPTIONS', {
      origin: 'https://app.example.com',
      'access-control-request-method': 'POST',
      'access-control-request-headers': 'authorization, content-type',
    })
    expect(response.status).toBe(204)
    expect(response.headers.get('access-control-allow-origin')).toBe('https://app.example.com')
    expect(response.headers.get('access-control-allow-methods')).toContain('POST')
    expect(response.headers.get('access-control-allow-headers')).toContain('authorization')
    expect(response.headers.get('access-control-allow-headers')).toContain('content-type')
    expect(response.headers.get('access-control-allow-credentials')).toBeNull()
    expect(response.headers.get('vary')).toContain('Origin')
  })

  it('names the allowed origin (never *) on its requests', async () => {
    const response = await send('POST', { origin: 'https://app.example.com' })
    expect(response.status).toBe(200)
    expect(response.headers.get('access-control-allow-origin')).toBe('https://app.example.com')
  })

  it.each([
    ['the own page', { origin: 'http://127.0.0.1:8080' }],
    ['a program without Origin', {}],
    ['a foreign page reading', { origin: 'https://evil.example' }],
  ])('gives no CORS header to %s', async (_name, headers) => {
    const response = await send('GET', headers)
    expect(response.headers.get('access-control-allow-origin')).toBeNull()
  })

  it('refuses the preflight of a foreign origin without CORS headers', async () => {
    const response = await send('OPTIONS', {
      origin: 'https://evil.example',
      'access-control-request-method': 'POST',
    })
    expect(response.status).toBe(403)
    expect(response.headers.get('access-control-allow-origin')).toBeNull()
  })
})
