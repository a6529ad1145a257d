/**
 * `/api/characters` over the server: list, get, put, delete, kept in the config file (so a restart
 * keeps them) and applied at once; refused without the admin token, from a foreign page, with a
 * body that is not JSON, and whole when invalid.
 */
import { readFile } from 'node:fs/promises'
import { afterEach, describe, expect, it } from 'vitest'
import { loadConfig } from '../../src/characters/load-config.js'
import { startTestServer, type TestServer } from '../server/start-test-server.js'

let server: TestServer | undefined
afterEach(async () => {
  await server?.stop()
  server = undefined
})

const adminToken = 'admin-token-0123456789abcdef'
const chatToken = 'chat-token-0123456789abcdef'

const call = (
  method: string,
  path: string,
  options: { body?: unknown; headers?: Record<string, string> } = {},
) =>
  fetch(`${server!.url}${path}`, {
    method,
    headers: {
      'content-type': 'application/json',
      authorization: `Bearer ${adminToken}`,
      ...options.headers,
    },
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
  })

const startWithTokens = (extra = '') =>
  startTestServer({
    configText: `server:\n  token: ${chatToken}\n  admin_token: ${adminToken}\ncharacter:\n  name: 小助手\n${extra}`,
  })

describe('/api/characters', () => {
  it('lists, creates, changes and deletes characters, kept in the config file', async () => {
    server = await startWithTokens()
    const listed = await (await call('GET', '/api/characters')).json()
    expect(listed.characters).toEqual([
      { id: '小助手', name: '小助手', default: true, avatar: '', greets: false },
    ])

    const created = await call('PUT', '/api/characters/alice', {
      body: { name: 'Alice', persona: '画家', greeting: '你好！' },
    })
    expect(created.status).toBe(200)
    expect((await created.json()).character).toMatchObject({
      name: 'Alice',
      persona: '画家',
      reply_format: 'auto',
    })
    const changed = await call('PUT', '/api/characters/alice', { body: { persona: '雕塑家' } })
    expect((await changed.json()).character).toMatchObject({
      name: 'Alice',
      persona: '雕塑家',
      greeting: '你好！',
    })

    expect(
      (await (await call('GET', '/api/characters')).json()).characters.map(
        (entry: { id: string }) => entry.id,
      ),
    ).toEqual(['小助手', 'alice'])
    expect(await (await call('GET', '/api/characters/alice')).json()).toMatchObject({
      id: 'alice',
      default: false,
      character: { persona: '雕塑家' },
    })
    // In the file, so a restart keeps it; and in force now.
    const { config } = await loadConfig(server.configPath)
    expect(config.characters.alice).toMatchObject({ name: 'Alice', persona: '雕塑家' })
    expect(server.charpipe.config.characters.alice?.persona).toBe('雕塑家')
    expect(
      await (
        await fetch(`${server.url}/v1/models`, { headers: { authorization: `Bearer ${chatToken}` } })
      ).json(),
    ).toMatchObject({
      data: [{ id: '小助手' }, { id: 'alice' }],
    })

    const renamedDefault = await call('PUT', '/api/characters/小助手', { body: { persona: '默认' } })
    expect((await renamedDefault.json()).character.persona).toBe('默认')
    expect((await loadConfig(server.configPath)).config.character.persona).toBe('默认')

    expect((await call('DELETE', '/api/characters/alice')).status).toBe(200)
    expect((await loadConfig(server.configPath)).config.characters).toEqual({})
    const gone = await call('GET', '/api/characters/alice')
    expect(gone.status).toBe(400)
    expect((await gone.json()).error.message).toBe(
      'character "alice" is not configured; known characters: "小助手"',
    )
    const keepDefault = await call('DELETE', `/api/characters/${encodeURIComponent('小助手')}`)
    expect(keepDefault.status).toBe(400)
    expect((await keepDefault.json()).error.message).toContain('is the default character')
  })

  it('refuses an invalid character whole, naming the field, and a bad id', async () => {
    server = await startWithTokens()
    const before = await readFile(server.configPath, 'utf8')
    const invalid = await call('PUT', '/api/characters/bob', { body: { name: 'Bob', reply_format: 'xml' } })
    expect(invalid.status).toBe(400)
    const body = await invalid.json()
    expect(body.error.code).toBe('invalid_config')
    expect(body.error.issues[0].path).toBe('characters.bob.reply_format')
    const badEmotion = await call('PUT', '/api/characters/bob', { body: { default_emotion: '狂喜' } })
    expect((await badEmotion.json()).error.issues[0]).toMatchObject({
      path: 'characters.bob.default_emotion',
    })
    const badId = await call('PUT', '/api/characters/..hidden', { body: { name: 'x' } })
    expect(badId.status).toBe(400)
    expect((await badId.json()).error.message).toContain('character id "..hidden"')
    expect(await readFile(server.configPath, 'utf8')).toBe(before)
  })

  // Found by the config door fuzz: field names that are also names on every object's prototype.
  it('refuses fields named after Object.prototype members as unknown fields, not with a server error', async () => {
    server = await startWithTokens()
    const before = await readFile(server.configPath, 'utf8')
    for (const key of ['toString', 'valueOf', 'hasOwnProperty', 'isPrototypeOf']) {
      for (const value of [{ a: null }, 'text', 1, [], null]) {
        const answer = await call('PUT', '/api/characters/bob', {
          body: { type: '_look', [key]: value, name: 'Bob', persona: 'A grumpy ferryman.' },
        })
        const body = await answer.json()
        expect(answer.status, `${key}: ${JSON.stringify(value)}`).toBe(400)
        expect(body.error.code).toBe('invalid_config')
        expect(body.error.issues.map((issue: { path: string }) => issue.path)).toContain(
          'characters.bob.type',
        )
      }
    }
    const constructorKey = await call('PUT', '/api/characters/bob', { body: { constructor: { a: null } } })
    expect(constructorKey.status).toBe(400)
    expect((await constructorKey.json()).error.message).toContain('constructor')
    const changed = await call('PUT', '/api/config', {
      body: { llm: { toString: { a: null } }, characters: { bob: { valueOf: 'x', name: 'Bob' } } },
    })
    expect(changed.status).toBe(400)
    // `null` removes a field: one the file does not have is not found on the prototype either.
    const removed = await call('PUT', '/api/config', {
      body: { character: { toString: null, valueOf: null }, server: { hasOwnProperty: null } },
    })
    expect(removed.status).toBe(200)
    expect(await readFile(server.configPath, 'utf8')).toBe(before)
  })

  it('is administration: refused with the chat token, without a token and from a foreign page', async () => {
    server = await startWithTokens('characters:\n  alice:\n    name: Alice\n')
    for (const [method, path, body] of [
      ['GET', '/api/characters', undefined],
      ['GET', '/api/characters/alice', undefined],
      ['PUT', '/api/characters/alice', { persona: 'x' }],
      ['DELETE', '/api/characters/alice', undefined],
    ] as const) {
      const asChat = await call(method, path, { body, headers: { authorization: `Bearer ${chatToken}` } })
      expect(asChat.status).toBe(401)
      expect((await asChat.json()).error.message).toContain('server.admin_token')
      expect((await call(method, path, { body, headers: { authorization: '' } })).status).toBe(401)
    }
    const foreign = await call('PUT', '/api/characters/alice', {
      body: { persona: 'planted' },
      headers: { origin: 'https://evil.example' },
    })
    expect(foreign.status).toBe(403)
    const formPost = await fetch(`${server.url}/api/characters/alice`, {
      method: 'PUT',
      headers: { 'content-type': 'text/plain', authorization: `Bearer ${adminToken}` },
      body: JSON.stringify({ persona: 'planted' }),
    })
    expect(formPost.status).toBe(415)
    expect(server.charpipe.config.characters.alice?.persona).toBe('')
  })

  it('keeps working without characters: the one character is listed and chats as before', async () => {
    server = await startTestServer({ configText: 'character:\n  name: 小桃\n' })
    const listed = await (await fetch(`${server.url}/api/characters`)).json()
    expect(listed.characters.map((entry: { id: string }) => entry.id)).toEqual(['小桃'])
    const models = await (await fetch(`${server.url}/v1/models`)).json()
    expect(models.data.map((entry: { id: string }) => entry.id)).toEqual(['小桃'])
    // Any model name is the one character, as before characters existed.
    const completion = await fetch(`${server.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content: '你好' }] }),
    })
    expect(completion.status).toBe(200)
  })
})
