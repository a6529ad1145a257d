import { Hono } from 'hono'
import { describe, expect, it } from 'vitest'
import { requireJsonBody } from './require-json-body.js'

const app = new Hono()
app.use('*', requireJsonBody({ extraTypes: { '/api/upload': ['image/png'] } }))
app.all('*', (context) => context.text('ran'))

describe('requireJsonBody', () => {
  it.each([
    ['application/json', 200],
    ['application/json; charset=utf-8', 200],
    ['Application/JSON', 200],
    ['application/merge-patch+json', 200],
    ['text/plain', 415],
    ['text/plain;charset=UTF-8', 415],
    ['application/x-www-form-urlencoded', 415],
    ['multipart/form-data; boundary=x', 415],
    ['image/png', 415],
  ])('a POST body of type %s → %i', async (type, status) => {
    const response = await app.request('/api/memory', {
      method: 'POST',
      headers: { 'content-type': type },
      body: '{"text":"planted"}',
    })
    expect(response.status).toBe(status)
    if (status === 415) {
      const body = (await response.json()) as { error: { code: string; message: string } }
      expect(body.error.code).toBe('bad_request')
      expect(body.error.message).toContain('Content-Type: application/json')
    }
  })

  it('refuses a body that names no type', async () => {
    const response = await app.request('/api/memory', { method: 'PUT', headers: { 'content-length': '2' } })
    expect(response.status).toBe(415)
    expect(await response.text()).toContain('no Content-Type')
  })

  it('lets requests without a body through (DELETE, an empty POST) and never checks reads', async () => {
    expect((await app.request('/api/sessions/a', { method: 'DELETE' })).status).toBe(200)
    expect((await app.request('/api/doctor', { method: 'POST' })).status).toBe(200)
    expect((await app.request('/api/config', { headers: { 'content-type': 'text/plain' } })).status).toBe(200)
  })

  it('takes another type only on the path that lists it', async () => {
    const png = { method: 'POST', headers: { 'content-type': 'image/png' }, body: 'x' }
    expect((await app.request('/api/upload', png)).status).toBe(200)
    expect((await app.request('/api/chat', png)).status).toBe(415)
  })
})
