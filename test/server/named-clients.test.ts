/**
 * `server.clients`: each token is one named client with chat scope only, whatever the other tokens
 * are; its sessions live in a namespace of its own that no `X-Charpipe-Client` key reaches; its
 * token is masked, file-only and never taken from the admin API.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { startTestServer, type TestServer } from './start-test-server.js'
import { openTestSocket } from './websocket-client.js'

let server: TestServer | undefined
afterEach(async () => {
  await server?.stop()
  server = undefined
})

const airiToken = 'airi-token-0123456789abcdef'
const olvToken = 'olv-token-0123456789abcdef'
const adminToken = 'admin-token-0123456789abcdef'
const configText = [
  'server:',
  `  admin_token: ${adminToken}`,
  '  clients:',
  `    - { name: airi, token: ${airiToken} }`,
  `    - { name: olv, token: ${olvToken}, profile: { emotion: bracket } }`,
  '',
].join('\n')

const call = (method: string, path: string, token: string | undefined, body?: unknown, headers = {}) =>
  fetch(`${server!.url}${path}`, {
    method,
    headers: {
      'content-type': 'application/json',
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...headers,
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  })

const chat = (token: string | undefined, session: string, text: string, headers = {}) =>
  call('POST', '/api/chat', token, { session, text }, headers).then((response) => response.text())

const storedTexts = async (session: string, token: string | undefined, headers = {}) => {
  const response = await call(
    'GET',
    `/api/sessions/${encodeURIComponent(session)}/messages`,
    token,
    undefined,
    headers,
  )
  expect(response.status).toBe(200)
  const body = (await response.json()) as { messages: { content: string }[] }
  return body.messages.map((message) => message.content)
}

describe('named clients (server.clients)', () => {
  it('a client token chats and is refused administration, naming the client', async () => {
    server = await startTestServer({ configText })
    expect((await call('POST', '/api/chat', airiToken, { text: 'hi' })).status).toBe(200)
    const refused = await call('GET', '/api/config', airiToken)
    expect(refused.status).toBe(401)
    expect((await refused.json()).error.message).toContain('client "airi" has chat scope only')
  })

  it("each client's sessions are its own: another client, a keyed client and the tokenless page never see them", async () => {
    server = await startTestServer({ configText })
    await chat(airiToken, 'diary', 'airi wrote this')
    expect((await storedTexts('diary', airiToken)).join(' ')).toContain('airi wrote this')
    expect(await storedTexts('diary', olvToken)).toEqual([])
    // A client key that looks like the namespace's is no way in.
    expect(await storedTexts('diary', olvToken, { 'x-charpipe-client': 'client:airi' })).toEqual([])
    expect(await storedTexts('diary', adminToken)).toEqual([])
  })

  it('the WebSocket takes a client token as that client', async () => {
    server = await startTestServer({ configText })
    const client = await openTestSocket(`${server.url}/ws?token=${airiToken}`)
    client.send({ type: 'user_input', session: 'voice', text: 'over the socket' })
    await client.waitForTurn('voice')
    await client.close()
    expect((await storedTexts('voice', airiToken)).join(' ')).toContain('over the socket')
    expect(await storedTexts('voice', olvToken)).toEqual([])
  })

  it('tokens are masked in GET /api/config and the admin API cannot add or change a client', async () => {
    server = await startTestServer({ configText })
    const config = await (await call('GET', '/api/config', adminToken)).json()
    expect(config.server.clients.map((client: { token: string }) => client.token)).toEqual(['***', '***'])
    expect(JSON.stringify(config)).not.toContain(airiToken)
    const added = await call('PUT', '/api/config', adminToken, {
      server: { clients: [{ name: 'evil', token: 'evil-token-0123456789abcdef' }] },
    })
    expect(added.status).toBe(400)
    const after = await (await call('GET', '/api/config', adminToken)).json()
    expect(after.server.clients.map((client: { name: string }) => client.name)).toEqual(['airi', 'olv'])
  })

  it('a short token or a name used twice is a config error naming the field', async () => {
    const { parseConfig } = await import('../../src/characters/load-config.js')
    expect(() => parseConfig({ server: { clients: [{ name: 'a', token: 'short' }] } })).toThrow(
      /server\.clients\.0\.token.*16 characters/s,
    )
    const token = 'same-token-0123456789abcdef'
    expect(() =>
      parseConfig({
        server: {
          clients: [
            { name: 'a', token },
            { name: 'a', token: `${token}x` },
          ],
        },
      }),
    ).toThrow(/server\.clients\.1\.name.*named twice/s)
  })
})

describe('a token that is no one’s', () => {
  const unknown = 'mistyped-token-0123456789abcdef'
  const expectNotKnown = async (response: Response) => {
    expect(response.status).toBe(401)
    expect(((await response.json()) as { error: { message: string } }).error.message).toContain(
      'the token is not known',
    )
  }

  it('is refused as not known where a front end would have been served without its profile', async () => {
    // No server.token: a request without a token is served, but a wrong client token is not.
    server = await startTestServer({ configText })
    await expectNotKnown(await call('POST', '/api/chat', unknown, { text: 'hi' }))
    await expectNotKnown(
      await call('POST', '/v1/chat/completions', unknown, {
        model: 'm',
        messages: [{ role: 'user', content: 'hi' }],
      }),
    )
    await expectNotKnown(await call('GET', '/api/sessions/s/messages', unknown))
    // The WebSocket's query token is read before the upgrade.
    await expectNotKnown(await fetch(`${server.url}/ws?token=${unknown}`))
    // Without a token the same request is served as before, and with a client token as that client.
    expect((await call('POST', '/api/chat', undefined, { text: 'hi' })).status).toBe(200)
    expect((await call('POST', '/api/chat', airiToken, { text: 'hi' })).status).toBe(200)
  })

  it('is refused as not known by a server with a chat token, and the right token is served', async () => {
    server = await startTestServer({ configText: 'server:\n  token: chat-token-0123456789abcdef\n' })
    await expectNotKnown(await call('POST', '/api/chat', unknown, { text: 'hi' }))
    expect((await call('POST', '/api/chat', 'chat-token-0123456789abcdef', { text: 'hi' })).status).toBe(200)
  })

  it('is let pass on a server with no token and no client at all (a placeholder API key)', async () => {
    server = await startTestServer({ configText: '' })
    const response = await call('POST', '/api/chat', 'unused', { text: 'hi' })
    expect(response.status).toBe(200)
    await response.text()
  })
})
