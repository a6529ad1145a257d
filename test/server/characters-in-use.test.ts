/**
 * A character a connector or a client profile speaks as cannot be deleted or renamed out from under
 * it (409 naming who uses it, nothing removed), and a config naming a missing character is refused
 * at load, naming the path.
 */
import { readFile } from 'node:fs/promises'
import { afterEach, describe, expect, it } from 'vitest'
import { loadConfig } from '../../src/characters/load-config.js'
import { startTestServer, type TestServer } from './start-test-server.js'

let server: TestServer | undefined
afterEach(async () => {
  await server?.stop()
  server = undefined
})

const configText = [
  'characters:',
  '  alice: { name: Alice, persona: A cheerful guide. }',
  '  bob: { name: Bob, persona: A calm guide. }',
  'server:',
  '  clients:',
  '    - { name: airi, token: airi-token-0123456789abcdef, profile: { character: Bob } }',
  'connectors:',
  '  twitch:',
  '    - { name: tw, channel: somechannel, character: alice, url: "ws://127.0.0.1:9/" }',
  '',
].join('\n')

const call = (method: string, path: string, body?: unknown) =>
  fetch(`${server!.url}${path}`, {
    method,
    headers: { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  })

describe('characters in use', () => {
  it("refuses to delete a connector's character, naming the connector, and keeps it", async () => {
    server = await startTestServer({ configText })
    const response = await call('DELETE', '/api/characters/alice')
    expect(response.status).toBe(409)
    const { error } = (await response.json()) as { error: { message: string } }
    expect(error.message).toContain('connector "tw"')
    expect(error.message).toContain('connectors.twitch.0.character')
    expect(await readFile(server.configPath, 'utf8')).toContain('alice:')
    expect((await call('GET', '/api/characters/alice')).status).toBe(200)
  })

  it("refuses to delete or rename a client profile's character, and allows a free one", async () => {
    server = await startTestServer({ configText })
    const deleted = await call('DELETE', '/api/characters/bob')
    expect(deleted.status).toBe(409)
    expect(((await deleted.json()) as { error: { message: string } }).error.message).toContain(
      'client "airi"',
    )
    const renamed = await call('PUT', '/api/characters/bob', { name: 'Robert' })
    expect(renamed.status).toBe(409)
    expect(((await renamed.json()) as { error: { message: string } }).error.message).toContain('renamed')
    // alice is named by id only: her display name may change.
    expect((await call('PUT', '/api/characters/alice', { name: 'Alicia' })).status).toBe(200)
  })

  it('refuses at load a config whose connector or client names a missing character', async () => {
    server = await startTestServer({ configText })
    const broken = configText
      .replace('character: alice', 'character: carol')
      .replace('character: Bob', 'character: Dan')
    await import('node:fs/promises').then(({ writeFile }) => writeFile(server!.configPath, broken))
    const error = await loadConfig(server.configPath).then(
      () => undefined,
      (failure: Error) => failure,
    )
    expect(error?.message).toContain('connectors.twitch.0.character')
    expect(error?.message).toContain('"carol"')
    expect(error?.message).toContain('server.clients.0.profile.character')
  })
})
