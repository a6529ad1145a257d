/**
 * `GET /api/characters/:id/card?format=png` answers exactly one PNG: the signature, then chunks
 * whose lengths add up to the body's length, each with a CRC that matches (computed here apart from
 * the project's own CRC code), IHDR first and IEND last with nothing after it. Checked for a
 * character with a picture, one without (the default picture) and the default character, after
 * other cards have passed through Node's shared Buffer pool: a body cut from that pool would carry
 * their bytes.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { importCharacterCard } from '../../src/characters/cards/index.js'
import { makeCardPng, makeCardV2, makePlainPng } from '../../src/testing/index.js'
import { startTestServer, type TestServer } from '../server/start-test-server.js'

let server: TestServer | undefined
afterEach(async () => {
  await server?.stop()
  server = undefined
})

const adminToken = 'admin-token-0123456789abcdef'

const crcTable = Array.from({ length: 256 }, (_, index) => {
  let value = index
  for (let bit = 0; bit < 8; bit++) value = value & 1 ? 0xedb88320 ^ (value >>> 1) : value >>> 1
  return value >>> 0
})

function crc32(bytes: Uint8Array): number {
  let crc = 0xffffffff
  for (const byte of bytes) crc = crcTable[(crc ^ byte) & 0xff]! ^ (crc >>> 8)
  return (crc ^ 0xffffffff) >>> 0
}

interface ParsedChunk {
  type: string
  length: number
}

/** Every chunk of the file, failing on a bad signature, a bad CRC or bytes after IEND. */
function parseEveryChunk(png: Uint8Array): ParsedChunk[] {
  expect([...png.subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])
  const view = new DataView(png.buffer, png.byteOffset, png.byteLength)
  const chunks: ParsedChunk[] = []
  let offset = 8
  while (offset < png.length) {
    expect(offset + 12).toBeLessThanOrEqual(png.length)
    const length = view.getUint32(offset)
    const typeAndData = png.subarray(offset + 4, offset + 8 + length)
    expect(offset + 12 + length).toBeLessThanOrEqual(png.length)
    const type = Buffer.from(typeAndData.subarray(0, 4)).toString('latin1')
    expect(type).toMatch(/^[A-Za-z]{4}$/)
    expect(view.getUint32(offset + 8 + length), `CRC of chunk ${chunks.length} (${type})`).toBe(
      crc32(typeAndData),
    )
    chunks.push({ type, length })
    offset += 12 + length
    if (type === 'IEND') break
  }
  expect(offset, 'bytes after IEND').toBe(png.length)
  return chunks
}

describe('card export as PNG', () => {
  it('is exactly one well-formed PNG for characters with and without a picture', async () => {
    server = await startTestServer({
      configText: `server:\n  admin_token: ${adminToken}\ncharacters_dir: {folder}/characters\ncharacter:\n  name: Default One\n  persona: The default character.\n`,
    })
    const headers = { authorization: `Bearer ${adminToken}` }
    const importCard = async (card: object) =>
      fetch(`${server!.url}/api/characters/import`, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json' },
        body: JSON.stringify(card),
      })
    expect((await importCard(makeCardV2({ name: 'No Picture' }))).status).toBe(201)
    const picture = makePlainPng()
    const withPicture = makeCardV2({ name: 'With Picture' })
    const pictureCard = await fetch(`${server.url}/api/characters/import`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'image/png' },
      body: new Blob([
        makeCardPng({ chara: Buffer.from(JSON.stringify(withPicture)).toString('base64') }, picture).slice(),
      ]),
    })
    expect(pictureCard.status).toBe(201)

    const list = (await (await fetch(`${server.url}/api/characters`, { headers })).json()) as {
      characters: { id: string; default: boolean }[]
    }
    const defaultId = list.characters.find((character) => character.default)!.id
    for (const [id, name] of [
      ['no-picture', 'No Picture'],
      ['with-picture', 'With Picture'],
      [defaultId, 'Default One'],
    ] as const) {
      // Other cards' JSON passes through the pool just before, as it did when the bug showed.
      await fetch(`${server.url}/api/characters/${id}/card`, { headers })
      const response = await fetch(`${server.url}/api/characters/${id}/card?format=png`, { headers })
      expect(response.status).toBe(200)
      expect(response.headers.get('content-type')).toBe('image/png')
      const bytes = new Uint8Array(await response.arrayBuffer())
      expect(Number(response.headers.get('content-length') ?? bytes.length)).toBe(bytes.length)
      const chunks = parseEveryChunk(bytes)
      expect(chunks[0]!.type).toBe('IHDR')
      expect(chunks.at(-1)!.type).toBe('IEND')
      expect(chunks.filter((chunk) => chunk.type === 'tEXt').length).toBeGreaterThanOrEqual(2)
      const imported = importCharacterCard(bytes, 'image/png')
      expect(imported.character.name).toBe(name)
      if (id === 'with-picture') expect(Buffer.from(imported.picture!)).toEqual(Buffer.from(picture))
    }
  })
})
