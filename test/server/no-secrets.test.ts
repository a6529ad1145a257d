/**
 * Sets recognisable secrets and greps everything the server printed and returned: log lines, HTTP
 * answers, SSE and WebSocket events, errors.
 */
import { join } from 'node:path'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { createCharpipe } from '../../src/engine/index.js'
import { type MockModelServer, startMockModelServer } from '../../src/testing/index.js'
import { startTestServer, type TestServer } from './start-test-server.js'
import { openTestSocket } from './websocket-client.js'

let server: TestServer | undefined
let model: MockModelServer
beforeAll(async () => {
  model = await startMockModelServer()
})
afterAll(async () => {
  await model.close()
})
afterEach(async () => {
  await server?.stop()
  server = undefined
})

const apiKey = 'sk-SECRETAPIKEY-4f8a9b'
const token = 'TOKENSECRET-77c1d2e3'
const redisPassword = 'REDISPASSWORD-a1b2c3'
const fallbackKey = 'FALLBACKKEY-9z8y7x'
const secrets = [apiKey, token, redisPassword, fallbackKey]

const configText = `server:
  token: ${token}
llm:
  provider: mock
  api_key: ${apiKey}
  fallbacks:
    - provider: openai
      api_key: ${fallbackKey}
storage:
  redis_url: redis://user:${redisPassword}@127.0.0.1:6379/0
`

describe('secrets', () => {
  it('never appear in a log line, an answer or an event', async () => {
    server = await startTestServer({ configText })
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' }
    const answers: string[] = []
    const call = async (method: string, path: string, body?: unknown, extraHeaders = headers) => {
      const response = await fetch(`${server!.url}${path}`, {
        method,
        headers: extraHeaders,
        body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
      })
      answers.push(JSON.stringify([...response.headers.entries()]), await response.text())
    }
    await call('GET', '/api/config')
    await call('PUT', '/api/config', { character: { name: '秘密' }, llm: { api_key: '***' } })
    await call('PUT', '/api/config', { llm: { temperature: 9 } })
    await call('PUT', '/api/config', `{"llm": {"api_key": "${apiKey}"`)
    await call('POST', '/api/chat', { text: 'hello' })
    await call('POST', '/api/chat', { text: '!error upstream_http' })
    await call('POST', '/api/preview', { text: 'hello' })
    await call('POST', '/api/doctor', {
      llm: { provider: 'openai', base_url: 'http://127.0.0.1:9/v1', api_key: '***' },
    })
    await call('POST', '/v1/chat/completions', { messages: [{ role: 'user', content: 'hi' }] })
    await call('GET', '/api/config', undefined, { ...headers, authorization: `Bearer ${token}x` })
    await call('GET', '/metrics')
    await call('GET', '/api/providers')
    const client = await openTestSocket(`${server.url}/ws?token=${token}`)
    client.send({ type: 'user_input', text: 'hello' })
    client.sendRaw(`{"type":"user_input","text":${JSON.stringify(apiKey)},"api_key":"${apiKey}"}`)
    await client.waitForTurn('default')
    await client.waitFor((frame) => frame.type === 'error')
    await client.close()

    const everything = [
      ...server.logLines,
      ...answers,
      ...client.frames.map((frame) => JSON.stringify(frame)),
    ]
    expect(server.logLines.length).toBeGreaterThan(0)
    expect(answers.join('')).toContain('***')
    for (const text of everything) for (const secret of secrets) expect(text).not.toContain(secret)
  })

  it('never appear with the real engine either, even when the upstream echoes the key in its errors', async () => {
    server = await startTestServer({
      configText: [
        'server:',
        `  token: ${token}`,
        'llm:',
        '  provider: custom',
        `  base_url: ${model.url}/v1`,
        `  api_key: ${apiKey}`,
        '  max_retries: 0',
        '  fallbacks:',
        '    - provider: openai',
        '      base_url: http://127.0.0.1:9/v1',
        `      api_key: ${fallbackKey}`,
        'storage:',
        `  sqlite_path: ${join('{folder}', 'charpipe.db')}`,
        `  redis_url: redis://user:${redisPassword}@127.0.0.1:6379/0`,
      ].join('\n'),
      captureAllLogs: true,
      createCharpipe: (config, logger) => createCharpipe(config, { logger }),
    })
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' }
    const answers: string[] = []
    const call = async (method: string, path: string, body?: unknown) => {
      const response = await fetch(`${server!.url}${path}`, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
      })
      answers.push(await response.text())
    }
    model.script([
      { text: '你好。' },
      { status: 401, body: { error: { message: `Incorrect API key provided: ${apiKey}` } } },
      { status: 500, body: `upstream trace: Authorization: Bearer ${apiKey}` },
    ])
    await call('POST', '/api/chat', { text: 'hello' })
    await call('POST', '/api/chat', { text: 'again' })
    await call('POST', '/v1/chat/completions', { messages: [{ role: 'user', content: 'hi' }] })
    await call('GET', '/api/config')
    await call('POST', '/api/doctor', {})
    const client = await openTestSocket(`${server.url}/ws?token=${token}`)
    model.script({ status: 401, body: { error: { message: `bad key ${apiKey}` } } })
    client.send({ type: 'user_input', text: 'hello' })
    await client.waitForTurn('default')
    await client.close()

    expect(model.requests.some((request) => JSON.stringify(request.headers).includes(apiKey))).toBe(true)
    // The primary's 401 and 500 (echoing the key) are seen, then the fallback is tried.
    expect(answers.join('')).toMatch(/upstream_(http|unreachable)/)
    expect(server.logLines.join('\n')).toMatch(/401|500/)
    const everything = [
      ...server.logLines,
      ...answers,
      ...client.frames.map((frame) => JSON.stringify(frame)),
    ]
    for (const text of everything) for (const secret of secrets) expect(text).not.toContain(secret)
  })
})
