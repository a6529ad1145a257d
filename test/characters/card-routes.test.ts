/**
 * Cards over the admin API: `POST /api/characters/import` takes a Character Card as JSON or as the
 * PNG carrying it and keeps it in the config file; `GET /api/characters/:id/card` gives it back as a
 * V3 card, JSON or PNG, which imports again to the same character. A bad card changes nothing.
 */
import { readFile } from 'node:fs/promises'
import { afterEach, describe, expect, it } from 'vitest'
import { base64Json, makeCardPng, makeCardV2, makeCardV3 } from '../../src/characters/cards/card-factories.js'
import { importCharacterCard } from '../../src/characters/cards/index.js'
import { loadConfig } from '../../src/config/load-config.js'
import { startTestServer, type TestServer } from '../server/start-test-server.js'

let server: TestServer | undefined
afterEach(async () => {
  await server?.stop()
  server = undefined
})

const adminToken = 'admin-token-0123456789abcdef'
const chatToken = 'chat-token-0123456789abcdef'

const post = (body: BodyInit, type: string, headers: Record<string, string> = {}) =>
  fetch(`${server!.url}/api/characters/import`, {
    method: 'POST',
    headers: { 'content-type': type, authorization: `Bearer ${adminToken}`, ...headers },
    body,
  })

const get = (path: string) =>
  fetch(`${server!.url}${path}`, { headers: { authorization: `Bearer ${adminToken}` } })

describe('character cards over /api/characters', () => {
  it('imports a V2 JSON card and a V3 PNG card, keeps them, and exports them to the same characters', async () => {
    server = await startTestServer({
      configText: `server:\n  token: ${chatToken}\n  admin_token: ${adminToken}\n`,
    })
    const jsonCard = await post(JSON.stringify(makeCardV2()), 'application/json')
    expect(jsonCard.status).toBe(201)
    expect(await jsonCard.json()).toEqual({ id: 'seraphina' })
    // The same card again: a second character beside the first, not over it.
    expect(await (await post(JSON.stringify(makeCardV2()), 'application/json')).json()).toEqual({
      id: 'seraphina-2',
    })
    const png = makeCardPng({ ccv3: base64Json(makeCardV3({ name: 'Luna Moth' })) })
    const pngCard = await post(new Blob([png.slice()]), 'image/png')
    expect(pngCard.status).toBe(201)
    expect(await pngCard.json()).toEqual({ id: 'luna-moth' })

    const { config } = await loadConfig(server.configPath)
    expect(Object.keys(config.characters)).toEqual(['seraphina', 'seraphina-2', 'luna-moth'])
    expect(config.characters['luna-moth']).toMatchObject({ name: 'Luna Moth' })
    expect(config.characters['luna-moth']!.avatar).toMatch(/^data:image\/png;base64,/)
    expect(server.charpipe.config.characters.seraphina!.alternate_greetings).toHaveLength(2)

    const exportedJson = await get('/api/characters/seraphina/card')
    expect(exportedJson.headers.get('content-type')).toBe('application/json')
    expect(exportedJson.headers.get('content-disposition')).toContain('seraphina.json')
    const v3 = await exportedJson.json()
    expect(v3.spec).toBe('chara_card_v3')
    expect(importCharacterCard(v3, 'application/json').character).toEqual(
      importCharacterCard(JSON.stringify(makeCardV2()), 'application/json').character,
    )
    const exportedPng = await get('/api/characters/luna-moth/card?format=png')
    expect(exportedPng.headers.get('content-type')).toBe('image/png')
    const bytes = new Uint8Array(await exportedPng.arrayBuffer())
    expect(importCharacterCard(bytes, 'image/png').character).toMatchObject({ name: 'Luna Moth' })
    expect((await get('/api/characters/luna-moth/card?format=gif')).status).toBe(400)
  })

  it('refuses a bad card naming the problem, and changes nothing', async () => {
    server = await startTestServer({ configText: `server:\n  admin_token: ${adminToken}\n` })
    const before = await readFile(server.configPath, 'utf8')
    const notJson = await post('{"spec": "chara_card_v2", ', 'application/json')
    expect(notJson.status).toBe(400)
    expect((await notJson.json()).error.message).toContain('not valid JSON')
    const notPng = await post(new Blob([new Uint8Array([1, 2, 3, 4])]), 'image/png')
    expect(notPng.status).toBe(400)
    expect((await notPng.json()).error.message).toMatch(/PNG/)
    const noName = await post(
      JSON.stringify({ spec: 'chara_card_v2', spec_version: '2.0', data: {} }),
      'application/json',
    )
    expect(noName.status).toBe(400)
    expect(await readFile(server.configPath, 'utf8')).toBe(before)
    expect(Object.keys(server.charpipe.config.characters)).toEqual([])
  })

  it('is administration: refused with the chat token, from a foreign page, and as a form', async () => {
    server = await startTestServer({
      configText: `server:\n  token: ${chatToken}\n  admin_token: ${adminToken}\n`,
    })
    const card = JSON.stringify(makeCardV2())
    expect((await post(card, 'application/json', { authorization: `Bearer ${chatToken}` })).status).toBe(401)
    expect((await post(card, 'application/json', { origin: 'https://evil.example' })).status).toBe(403)
    expect((await post(card, 'text/plain')).status).toBe(415)
    expect((await post(card, 'multipart/form-data; boundary=x')).status).toBe(415)
    const exported = await fetch(`${server.url}/api/characters/${encodeURIComponent('小助手')}/card`, {
      headers: { authorization: `Bearer ${chatToken}` },
    })
    expect(exported.status).toBe(401)
    expect(Object.keys(server.charpipe.config.characters)).toEqual([])
  })
})
