/**
 * What an upstream answered reaches clients only as a status and the provider's own JSON error
 * message: an internal page the server was pointed at never comes back through `llm_error` or the
 * doctor, which tells reachability and a `code` instead.
 */
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { createCharpipe } from '../../src/engine/index.js'
import { readSse } from './read-sse.js'
import { startTestServer, type TestServer } from './start-test-server.js'

const internalPage = '<html><body>INTERNAL-ADMIN-PANEL password=hunter2</body></html>'
let answer: { status: number; type: string; body: string } = { status: 200, type: 'text/plain', body: '' }
let upstream: Server
let upstreamUrl: string
let closedUrl: string
let server: TestServer | undefined

beforeAll(async () => {
  upstream = createServer((request, response) => {
    request.resume()
    response.writeHead(answer.status, { 'content-type': answer.type })
    response.end(answer.body)
  })
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve))
  upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/v1`
  // A port that was just free: nothing listens there.
  const probe = createServer()
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve))
  closedUrl = `http://127.0.0.1:${(probe.address() as AddressInfo).port}/v1`
  await new Promise((resolve) => probe.close(resolve))
})
afterAll(() => new Promise((resolve) => upstream.close(resolve)))
afterEach(async () => {
  await server?.stop()
  server = undefined
})

const start = () =>
  startTestServer({
    configText: [
      'llm:',
      '  provider: custom',
      `  base_url: ${upstreamUrl}`,
      '  model: m',
      '  max_retries: 0',
      'storage:',
      `  sqlite_path: ${join('{folder}', 'charpipe.db')}`,
    ].join('\n'),
    createCharpipe: (config, logger) => createCharpipe(config, { logger }),
  })

const chat = async () => {
  const response = await fetch(`${server!.url}/api/chat`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ session: 's', text: 'hi' }),
  })
  const messages = await readSse(response)
  const error = messages.find((message) => message.event === 'llm_error')
  return JSON.parse(error?.data ?? '{}') as { code?: string; message?: string }
}

const doctor = async (llm: Record<string, unknown> = {}) => {
  const response = await fetch(`${server!.url}/api/doctor`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ llm }),
  })
  return (await response.json()) as { ok: boolean; checks: { name: string; code: string; message: string }[] }
}

describe('upstream errors reaching clients', () => {
  it('an HTML error page is not echoed in llm_error; the status is', async () => {
    server = await start()
    answer = { status: 500, type: 'text/html', body: internalPage }
    const error = await chat()
    expect(error.code).toBe('upstream_http')
    expect(error.message).toContain('500')
    expect(error.message).not.toContain('INTERNAL-ADMIN-PANEL')
    expect(error.message).not.toContain('html')
  })

  it("the provider's own JSON error message is passed on, cut short", async () => {
    server = await start()
    const long = `model m is overloaded ${'x'.repeat(1000)}`
    answer = {
      status: 400,
      type: 'application/json',
      body: JSON.stringify({ error: { message: long, type: 'invalid_request_error' }, page: internalPage }),
    }
    const error = await chat()
    expect(error.message).toContain('model m is overloaded')
    expect(error.message!.length).toBeLessThan(400)
    expect(error.message).not.toContain('INTERNAL-ADMIN-PANEL')
  })
})

describe('the doctor reports reachability with a code, never the page', () => {
  it.each([
    [401, 'key_refused', false],
    [403, 'key_refused', false],
    [404, 'not_found', true],
    [500, 'http_error', true],
    [200, 'ok', true],
  ])('HTTP %i → %s', async (status, code, reachable) => {
    server = await start()
    answer = { status, type: 'text/html', body: internalPage }
    const result = await doctor()
    const provider = result.checks.find((check) => check.name === 'provider')!
    expect(provider.code).toBe(code)
    expect(JSON.stringify(result)).not.toContain('INTERNAL-ADMIN-PANEL')
    if (!reachable) expect(result.checks.find((check) => check.name === 'model')!.code).toBe('skipped')
  })

  it('a closed port is "unreachable", without the system error that would map ports', async () => {
    server = await start()
    const result = await doctor({ base_url: closedUrl })
    const provider = result.checks.find((check) => check.name === 'provider')!
    expect(provider).toMatchObject({ ok: false, code: 'unreachable' })
    expect(provider.message).not.toMatch(/ECONNREFUSED|fetch failed/)
  })

  it('the model check gives the page-free code too', async () => {
    server = await start()
    answer = { status: 200, type: 'text/html', body: internalPage }
    const result = await doctor()
    const model = result.checks.find((check) => check.name === 'model')!
    expect(model.code).not.toBe('ok')
    expect(JSON.stringify(result)).not.toContain('INTERNAL-ADMIN-PANEL')
  })
})
