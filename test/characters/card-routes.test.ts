/**
 * Cards over the admin API: `POST /api/characters/import` takes a Character Card as JSON or as the
 * PNG carrying it and keeps it as a file of the characters folder, its picture beside it (served by
 * `GET /api/characters/:id/avatar`); the same card again updates it; `GET /api/characters/:id/card` gives it back as a
 * V3 card, JSON or PNG, which imports again to the same character. A bad card changes nothing.
 */
import { readdir, readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { importCharacterCard } from '../../src/characters/cards/index.js'
import { loadConfig } from '../../src/characters/load-config.js'
import {
  encodeCardChunkText,
  makeCardPng,
  makeCardV2,
  makeCardV3,
  makePlainPng,
} from '../../src/testing/index.js'
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
  it('imports a V2 JSON card and a V3 PNG card as files, serves the picture apart, and exports them', async () => {
    server = await startTestServer({
      configText: `server:\n  token: ${chatToken}\n  admin_token: ${adminToken}\nstorage:\n  sqlite_path: {folder}/data/charpipe.db\n`,
    })
    const configText = await readFile(server.configPath, 'utf8')
    const jsonCard = await post(JSON.stringify(makeCardV2()), 'application/json')
    expect(jsonCard.status).toBe(201)
    expect(await jsonCard.json()).toEqual({ id: 'seraphina', updated: false })
    // The same card again updates it; a second one beside it only when asked.
    const changed = JSON.stringify(makeCardV2({ scenario: 'Dawn in the glade.' }))
    const again = await post(changed, 'application/json')
    expect(again.status).toBe(200)
    expect(await again.json()).toEqual({ id: 'seraphina', updated: true })
    expect(server.charpipe.config.characters.seraphina!.scenario).toBe('Dawn in the glade.')
    const asNew = await fetch(`${server.url}/api/characters/import?as_new=true`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${adminToken}` },
      body: changed,
    })
    expect(await asNew.json()).toEqual({ id: 'seraphina-2', updated: false })
    const picture = makePlainPng()
    const png = makeCardPng({ ccv3: encodeCardChunkText(makeCardV3({ name: 'Luna Moth' })) }, picture)
    const pngCard = await post(new Blob([png.slice()]), 'image/png')
    expect(pngCard.status).toBe(201)
    expect(await pngCard.json()).toEqual({ id: 'luna-moth', updated: false })

    // config.yaml is left as the person wrote it; the characters are files of the data folder.
    expect(await readFile(server.configPath, 'utf8')).toBe(configText)
    const dir = join(server.folder, 'data', 'characters')
    expect((await readdir(dir)).sort()).toEqual([
      'luna-moth.json',
      'luna-moth.png',
      'seraphina-2.json',
      'seraphina.json',
    ])
    const { config } = await loadConfig(server.configPath)
    expect(Object.keys(config.characters).sort()).toEqual(['luna-moth', 'seraphina', 'seraphina-2'])
    expect(config.characters['luna-moth']).toMatchObject({ name: 'Luna Moth', avatar: '' })
    expect(server.charpipe.config.characters.seraphina!.alternate_greetings).toHaveLength(2)

    const list = await (await get('/api/characters')).json()
    expect(list.characters.find((character: { id: string }) => character.id === 'luna-moth')).toMatchObject({
      avatar: '/api/characters/luna-moth/avatar',
    })
    expect(list.characters.find((character: { id: string }) => character.id === 'seraphina').avatar).toBe('')
    const avatar = await get('/api/characters/luna-moth/avatar')
    expect(avatar.status).toBe(200)
    expect(avatar.headers.get('content-type')).toBe('image/png')
    expect(new Uint8Array(await avatar.arrayBuffer())).toEqual(picture)
    expect((await get('/api/characters/seraphina/avatar')).status).toBe(404)

    const exportedJson = await get('/api/characters/seraphina/card')
    expect(exportedJson.headers.get('content-type')).toBe('application/json')
    expect(exportedJson.headers.get('content-disposition')).toContain('seraphina.json')
    const v3 = await exportedJson.json()
    expect(v3.spec).toBe('chara_card_v3')
    expect(importCharacterCard(v3, 'application/json').character).toEqual(
      importCharacterCard(changed, 'application/json').character,
    )
    const exportedPng = await get('/api/characters/luna-moth/card?format=png')
    expect(exportedPng.headers.get('content-type')).toBe('image/png')
    const bytes = new Uint8Array(await exportedPng.arrayBuffer())
    const fromPng = importCharacterCard(bytes, 'image/png')
    expect(fromPng.character).toMatchObject({ name: 'Luna Moth' })
    expect(Buffer.from(fromPng.picture!)).toEqual(Buffer.from(picture))
    expect((await get('/api/characters/luna-moth/card?format=gif')).status).toBe(400)

    // Deleting an imported character removes its files.
    const deleted = await fetch(`${server.url}/api/characters/luna-moth`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${adminToken}` },
    })
    expect(deleted.status).toBe(200)
    expect((await readdir(dir)).sort()).toEqual(['seraphina-2.json', 'seraphina.json'])
    expect(Object.keys(server.charpipe.config.characters).sort()).toEqual(['seraphina', 'seraphina-2'])
  })

  it('serves the picture of a character imported into config.yaml earlier, which keeps working', async () => {
    const picture = makePlainPng()
    const dataUri = `data:image/png;base64,${Buffer.from(picture).toString('base64')}`
    server = await startTestServer({
      configText: `server:\n  admin_token: ${adminToken}\ncharacters_dir: {folder}/characters\ncharacters:\n  old:\n    name: Old\n    avatar: ${dataUri}\n`,
    })
    const list = await (await get('/api/characters')).json()
    expect(list.characters.find((character: { id: string }) => character.id === 'old').avatar).toBe(
      '/api/characters/old/avatar',
    )
    const avatar = await get('/api/characters/old/avatar')
    expect(avatar.headers.get('content-type')).toBe('image/png')
    expect(new Uint8Array(await avatar.arrayBuffer())).toEqual(picture)
    // Imported again, the card takes its place in the characters folder and leaves config.yaml.
    expect((await post(JSON.stringify(makeCardV2({ name: 'Old' })), 'application/json')).status).toBe(200)
    const left = await readFile(server.configPath, 'utf8')
    expect(left).toContain(`characters_dir: ${server.folder}/characters\n`)
    expect(left).not.toContain('old')
    expect(server.charpipe.config.characters.old!.persona).toContain('guardian')
  })

  it('refuses a card past a limit, naming it, before keeping anything', async () => {
    server = await startTestServer({
      configText: `server:\n  admin_token: ${adminToken}\ncharacters_dir: {folder}/characters\n`,
    })
    const cases: [unknown, RegExp][] = [
      [makeCardV2({ name: 'n'.repeat(100_000) }), /data\.name: .*200/],
      [makeCardV2({ description: 'd'.repeat(200_000) }), /data\.description: .*100000/],
      [
        makeCardV2({ alternate_greetings: Array.from({ length: 1_000 }, () => 'Hi.') }),
        /alternate_greetings: .*200/,
      ],
      [
        makeCardV2({
          character_book: { entries: Array.from({ length: 150_000 }, () => ({ keys: ['a'], content: 'b' })) },
        } as never),
        /character_book\.entries: .*5000/,
      ],
      [
        makeCardV2({
          character_book: {
            entries: [{ keys: ['k'.repeat(8 * 1024 * 1024)], content: 'x', extensions: {} }],
          },
        } as never),
        /character_book\.entries\.0\.keys\.0: .*500/,
      ],
      [
        makeCardV2({
          character_book: {
            entries: Array.from({ length: 1_000 }, (_, index) => ({
              keys: ['dragon', '/(?:[a-z]?){900}[0-9]/'],
              content: 'x',
              extensions: {},
              ...(index === 0 ? { name: 'Dragons' } : {}),
            })),
          },
        } as never),
        /lorebook entry 0 \("Dragons"\), key 1: the pattern is too costly \(program of 1803 instructions; at most 1000\)/,
      ],
    ]
    for (const [card, message] of cases) {
      const response = await post(JSON.stringify(card), 'application/json')
      expect(response.status).toBe(400)
      const body = await response.json()
      expect(body.error.code).toBe('bad_request')
      expect(body.error.message).toMatch(message)
    }
    expect(Object.keys(server.charpipe.config.characters)).toEqual([])
  })

  it('refuses a bad card naming the problem, and changes nothing', async () => {
    server = await startTestServer({
      configText: `server:\n  admin_token: ${adminToken}\ncharacters_dir: {folder}/characters\n`,
    })
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
      configText: `server:\n  token: ${chatToken}\n  admin_token: ${adminToken}\ncharacters_dir: {folder}/characters\n`,
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
