/**
 * `GET /api/clients`: the admin's list of named clients with their profile and last use, never
 * their tokens; a client token cannot read it.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { startTestServer, type TestServer } from './start-test-server.js'

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
  `    - { name: airi, token: ${airiToken}, profile: { persona: server, history: server, emotion: act } }`,
  `    - { name: olv, token: ${olvToken}, profile: { emotion: bracket, emotion_names: { 开心: joy } } }`,
  '',
].join('\n')

const listClients = (token: string) =>
  fetch(`${server!.url}/api/clients`, { headers: { authorization: `Bearer ${token}` } })

describe('GET /api/clients', () => {
  it("lists each client's name, profile and last use, without its token", async () => {
    server = await startTestServer({ configText })
    const before = await listClients(adminToken)
    expect(before.status).toBe(200)
    const text = await before.text()
    expect(text).not.toContain(airiToken)
    expect(text).not.toContain(olvToken)
    const { clients } = JSON.parse(text) as {
      clients: { name: string; profile: Record<string, unknown>; last_used_at: string | null }[]
    }
    expect(clients.map((client) => [client.name, client.last_used_at])).toEqual([
      ['airi', null],
      ['olv', null],
    ])
    expect(clients[0]!.profile).toMatchObject({ persona: 'server', history: 'server', emotion: 'act' })
    expect(clients[1]!.profile).toMatchObject({ emotion: 'bracket', emotion_names: { 开心: 'joy' } })

    const chat = await fetch(`${server.url}/api/chat`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${airiToken}` },
      body: JSON.stringify({ text: 'hi' }),
    })
    await chat.text()
    const after = (await (await listClients(adminToken)).json()) as {
      clients: { name: string; last_used_at: string | null }[]
    }
    const airi = after.clients.find((client) => client.name === 'airi')!
    expect(airi.last_used_at).not.toBeNull()
    expect(Number.isNaN(Date.parse(airi.last_used_at!))).toBe(false)
    expect(after.clients.find((client) => client.name === 'olv')!.last_used_at).toBeNull()
  })

  it('is administration: a client token is refused', async () => {
    server = await startTestServer({ configText })
    const refused = await listClients(airiToken)
    expect(refused.status).toBe(401)
    expect(await refused.text()).not.toContain(olvToken)
  })
})
