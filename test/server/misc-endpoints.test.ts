import { mkdir, writeFile } from 'node:fs/promises'
import { createServer as createHttpServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { startMockModelServer } from '../../src/testing/index.js'
import { startTestServer, type TestServer } from './start-test-server.js'
import { openTestSocket } from './websocket-client.js'

// biome-ignore lint/suspicious/noExplicitAny: answers are checked field by field with expect
type JsonAnswer = any

let server: TestServer | undefined
afterEach(async () => {
  await server?.stop()
  server = undefined
})

const json = async (path: string, init: RequestInit = {}) => {
  const response = await fetch(`${server!.url}${path}`, {
    ...init,
    headers: { 'content-type': 'application/json', ...init.headers },
  })
  return { status: response.status, body: (await response.json()) as JsonAnswer }
}

describe('health, metrics and the web page', () => {
  it('answers /healthz', async () => {
    server = await startTestServer()
    expect(await json('/healthz')).toEqual({ status: 200, body: { ok: true } })
  })

  it('counts turns, errors by code, first chunk and sentence times, connections', async () => {
    server = await startTestServer()
    const client = await openTestSocket(`${server.url}/ws`)
    client.send({ type: 'user_input', text: 'hi' })
    await client.waitForTurn('default')
    const from = client.frames.length
    client.send({ type: 'user_input', text: '!error upstream_timeout' })
    await client.waitForTurn('default', from)
    const text = await (await fetch(`${server.url}/metrics`)).text()
    expect(text).toMatch(/charpipe_turns_total\{endpoint="ws"\} 2/)
    expect(text).toMatch(/charpipe_errors_total\{code="upstream_timeout"\} 1/)
    expect(text).toMatch(/charpipe_time_to_first_chunk_seconds_count 1/)
    expect(text).toMatch(/charpipe_time_to_first_sentence_seconds_count 1/)
    expect(text).toMatch(/charpipe_turn_duration_seconds_count 2/)
    expect(text).toMatch(/charpipe_websocket_connections 1/)
    expect(text).toMatch(/charpipe_active_sessions 0/)
    await client.close()
  })

  it('serves the built page and its assets, and says how to build it when missing', async () => {
    server = await startTestServer()
    const missing = await fetch(`${server.url}/`)
    expect(missing.status).toBe(404)
    expect(await missing.text()).toContain('npm run build')
    const web = join(server.folder, 'web')
    await mkdir(join(web, 'assets'), { recursive: true })
    await writeFile(join(web, 'index.html'), '<!doctype html><title>charpipe page</title>')
    await writeFile(join(web, 'assets', 'app.js'), 'console.log(1)')
    const page = await fetch(`${server.url}/`)
    expect(page.headers.get('content-type')).toContain('text/html')
    expect(await page.text()).toContain('charpipe page')
    const script = await fetch(`${server.url}/assets/app.js`)
    expect(script.headers.get('content-type')).toContain('javascript')
    expect((await fetch(`${server.url}/..%2F..%2Fconfig.yaml`)).status).toBe(404)
  })

  it('answers an unknown API path with a JSON 404', async () => {
    server = await startTestServer()
    expect(await json('/api/nothing')).toMatchObject({ status: 404, body: { error: { code: 'not_found' } } })
  })
})

describe('admin endpoints', () => {
  it('lists processors, previews the context, shows and deletes session history', async () => {
    server = await startTestServer()
    const processors = await json('/api/processors')
    expect(processors.body[0]).toEqual(
      expect.objectContaining({
        id: expect.any(String),
        name: expect.any(String),
        description: expect.any(String),
        priority: expect.any(Number),
        enabled: expect.any(Boolean),
        configFields: expect.any(Array),
      }),
    )
    await (
      await fetch(`${server.url}/api/chat`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ session: 'p', text: 'hi' }),
      })
    ).text()
    const preview = await json('/api/preview', {
      method: 'POST',
      body: JSON.stringify({ session: 'p', text: 'next' }),
    })
    expect(preview.body.messages.at(-1)).toMatchObject({ role: 'user', content: 'next', source: 'input' })
    expect(preview.body.total_tokens).toBeGreaterThan(0)
    expect(preview.body.logs).toEqual([])
    expect((await json('/api/sessions/p/messages')).body.messages).toHaveLength(2)
    expect((await json('/api/sessions/p/messages?limit=1')).body.messages).toHaveLength(1)
    expect((await json('/api/sessions/p/messages?limit=zero')).status).toBe(400)
    expect((await json('/api/sessions/p', { method: 'DELETE' })).body).toMatchObject({ deleted: true })
    expect((await json('/api/sessions/p/messages')).body.messages).toEqual([])
  })

  it('lists the provider registry for the picker', async () => {
    server = await startTestServer()
    const providers = await json('/api/providers')
    expect(providers.body).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          name: 'deepseek',
          label: 'DeepSeek',
          apiType: 'openai',
          defaultBaseUrl: 'https://api.deepseek.com',
          defaultModel: 'deepseek-chat',
        }),
        expect.objectContaining({ name: 'mock', apiType: 'mock' }),
      ]),
    )
  })

  it('runs the doctor checks: config, address, model; a key rejected, an address not reached, a bad setting', async () => {
    const model = await startMockModelServer()
    const upstream = createHttpServer((request, response) => {
      response.statusCode = request.headers.authorization === 'Bearer sk-good-key-123456' ? 200 : 401
      response.end('{}')
    })
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve))
    const guarded = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/v1`
    try {
      model.script({ text: 'ok' })
      server = await startTestServer({
        configText: `llm:\n  provider: custom\n  base_url: ${model.url}/v1\n  api_key: sk-good-key-123456\n`,
      })
      const post = (body: unknown) => json('/api/doctor', { method: 'POST', body: JSON.stringify(body) })
      const healthy = await post({})
      expect(healthy.body).toMatchObject({
        ok: true,
        checks: [
          { name: 'config', ok: true },
          { name: 'provider', ok: true },
          { name: 'model', ok: true },
        ],
      })
      expect(healthy.body.checks[2].message).toContain('"ok"')
      expect((await post({ llm: { provider: 'mock' } })).body.ok).toBe(true)
      const rejected = await post({ llm: { base_url: guarded, api_key: 'sk-wrong-key-000000' } })
      expect(rejected.body.ok).toBe(false)
      expect(rejected.body.checks[1].message).toContain('HTTP 401')
      // A refused key is said as such, not as a provider that cannot be reached.
      expect(rejected.body.checks[1]).toMatchObject({ code: 'key_refused' })
      expect(rejected.body.checks[2]).toMatchObject({
        ok: false,
        code: 'skipped',
        message: 'skipped: the provider refused the key',
      })
      // The stored key goes only to its own host: another address needs a key given with it.
      const keyMoved = await post({ llm: { base_url: 'http://127.0.0.1:9/v1', api_key: '***' } })
      expect(keyMoved.status).toBe(400)
      expect(keyMoved.body.error.issues[0].path).toBe('llm.api_key')
      const unreachable = await post({ llm: { base_url: 'http://127.0.0.1:9/v1', api_key: 'sk-other' } })
      expect(unreachable.body.checks[1]).toMatchObject({
        ok: false,
        message: expect.stringContaining('cannot reach'),
      })
      model.script({ status: 401, body: { error: { message: 'bad key' } } })
      const modelRefuses = await post({})
      expect(modelRefuses.body.ok).toBe(false)
      expect(modelRefuses.body.checks[2].message).toContain('refused')
      const invalid = await post({ llm: { temperature: 'warm' } })
      expect(invalid.body).toMatchObject({ ok: false, checks: [{ name: 'config', ok: false }] })
      expect(invalid.body.checks[0].message).toContain('llm.temperature')
    } finally {
      upstream.close()
      await model.close()
    }
  })
})
