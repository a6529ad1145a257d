/**
 * "Without a token, only from this machine" holds behind a local proxy too: every socket peer is
 * then this machine, so a forwarded request (any header a proxy adds: X-Forwarded-For, Forwarded,
 * X-Real-IP, Via, …) without a configured token is refused, on the API, `/v1`, the WebSocket and a
 * OneBot reverse path without access_token.
 */
import { afterEach, describe, expect, it } from 'vitest'
import WebSocket from 'ws'
import { forwardingHeaders } from '../../src/server/security/find-forwarding-header.js'
import { startTestServer, type TestServer } from './start-test-server.js'

let server: TestServer | undefined
afterEach(async () => {
  await server?.stop()
  server = undefined
})

const chat = (headers: Record<string, string>) =>
  fetch(`${server!.url}/api/chat`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ session: 'forwarded', text: 'hello' }),
  })

/** The status an upgrade was answered with (101 when it was accepted). */
function upgradeStatus(path: string, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(`${server!.url.replace('http', 'ws')}${path}`, { headers })
    socket.once('open', () => {
      socket.close()
      resolve(101)
    })
    socket.once('unexpected-response', (_request, response) => resolve(response.statusCode ?? 0))
    socket.once('error', reject)
  })
}

describe('tokenless doors behind a proxy', () => {
  it('refuse a forwarded request on an open server, and serve the same request from this machine', async () => {
    server = await startTestServer({ configText: '' })
    const forwarded = await chat({ 'x-forwarded-for': '203.0.113.9' })
    expect(forwarded.status).toBe(401)
    expect(((await forwarded.json()) as { error: { message: string } }).error.message).toContain('forwarded')
    expect((await chat({ forwarded: 'for=203.0.113.9' })).status).toBe(401)
    const local = await chat({})
    expect(local.status).toBe(200)
    await local.text()
    expect(await upgradeStatus('/ws', { 'x-forwarded-for': '203.0.113.9' })).toBe(401)
  })

  it('refuse a request that carries any forwarding header, naming it and saying to set a token', async () => {
    server = await startTestServer({ configText: '' })
    for (const name of forwardingHeaders) {
      const headers = { [name]: '203.0.113.9' }
      const admin = await fetch(`${server.url}/api/config`, { headers })
      expect(admin.status, name).toBe(401)
      const { message } = ((await admin.json()) as { error: { message: string } }).error
      expect(message).toContain(name)
      expect(message).toContain('server.token')
      const v1 = await fetch(`${server.url}/v1/models`, { headers })
      expect(v1.status, name).toBe(401)
      await v1.text()
      expect(await upgradeStatus('/ws', headers), name).toBe(401)
    }
    expect((await fetch(`${server.url}/api/config`)).status).toBe(200)
  })

  it('serve a forwarded request that carries the configured token', async () => {
    server = await startTestServer({ configText: 'server:\n  token: forwarded-token-0123456789\n' })
    const response = await chat({
      'x-forwarded-for': '203.0.113.9',
      authorization: 'Bearer forwarded-token-0123456789',
    })
    expect(response.status).toBe(200)
    await response.text()
  })

  it('refuse a forwarded OneBot reverse connection to a path without access_token', async () => {
    server = await startTestServer({
      configText: [
        'connectors:',
        '  onebot:',
        '    - { name: qq, listen: /onebot/qq, groups: [1] }',
        '',
      ].join('\n'),
    })
    const onebot = { 'x-client-role': 'Universal', 'x-self-id': '10001' }
    for (const name of forwardingHeaders)
      expect(await upgradeStatus('/onebot/qq', { ...onebot, [name]: '203.0.113.9' }), name).toBe(401)
    expect(await upgradeStatus('/onebot/qq', onebot)).toBe(101)
  })
})
