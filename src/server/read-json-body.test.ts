import { Hono } from 'hono'
import { describe, expect, it } from 'vitest'
import * as z from 'zod'
import { readJsonBody } from './read-json-body.js'

const app = new Hono()
app.post('/echo', async (context) => {
  const body = await readJsonBody(context, z.unknown())
  if (!body.ok) return body.response
  // What routes do with a body (clone, store as JSON) recurses: it must never see a deep one.
  return context.json({ size: JSON.stringify(structuredClone(body.value)).length })
})

const post = (text: string) =>
  app.request('/echo', { method: 'POST', headers: { 'content-type': 'application/json' }, body: text })

describe('readJsonBody', () => {
  it('answers 400 naming the problem for a body nested far too deep, not 500', async () => {
    const response = await post(`${'['.repeat(100_000)}${']'.repeat(100_000)}`)
    expect(response.status).toBe(400)
    const body = (await response.json()) as { error: { code: string; message: string } }
    expect(body.error).toMatchObject({ code: 'bad_request' })
    expect(body.error.message).toContain('nests deeper than 64 levels')
  })

  it('takes ordinary nesting', async () => {
    expect((await post('{"a":{"b":[{"c":1}]}}')).status).toBe(200)
  })

  it('says when the body is not JSON', async () => {
    const response = await post('{"a":')
    expect(response.status).toBe(400)
    expect(await response.text()).toContain('not valid JSON')
  })
})
