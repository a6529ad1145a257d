import { Hono } from 'hono'
import { describe, expect, it } from 'vitest'
import { setPageHeaders } from './set-page-headers.js'

const app = new Hono()
app.use('*', setPageHeaders())
app.get('/', (context) => context.html('<!doctype html><p>page</p>'))
app.get('/api/config', (context) => context.json({}))

describe('setPageHeaders', () => {
  it('lets the page load only its own scripts and styles, connect only home, and never be framed', async () => {
    const response = await app.request('http://placeholder/', { headers: { host: '127.0.0.1:8080' } })
    const policy = response.headers.get('content-security-policy') ?? ''
    expect(policy).toContain("default-src 'none'")
    expect(policy).toContain("script-src 'self'")
    expect(policy).toContain("style-src 'self'")
    expect(policy).toContain("connect-src 'self' ws://127.0.0.1:8080 wss://127.0.0.1:8080")
    expect(policy).toContain("frame-ancestors 'none'")
    expect(policy).not.toContain('unsafe-inline')
    expect(response.headers.get('x-frame-options')).toBe('DENY')
    expect(response.headers.get('x-content-type-options')).toBe('nosniff')
  })

  it('marks API answers nosniff and unframeable too', async () => {
    const response = await app.request('/api/config')
    expect(response.headers.get('x-content-type-options')).toBe('nosniff')
    expect(response.headers.get('x-frame-options')).toBe('DENY')
    expect(response.headers.get('content-security-policy')).toContain("frame-ancestors 'none'")
  })
})
