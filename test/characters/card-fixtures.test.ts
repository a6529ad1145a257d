/**
 * The cards of test/fixtures/cards (V1, V2, V3, a "V3 template" with top-level fields, a PNG)
 * imported through the CLI and through HTTP: each becomes the same character either way, with its
 * greetings intact and its lorebook's own matching settings.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { loadConfig } from '../../src/characters/load-config.js'
import { startTestServer, type TestServer } from '../server/start-test-server.js'
import { repoRoot, runCli } from '../support/run-cli.js'

const fixtures = join(repoRoot, 'test', 'fixtures', 'cards')
const cardFiles = readdirSync(fixtures)
  .filter((name) => name.endsWith('.json') || name.endsWith('.png'))
  .sort()

const expected: Record<string, { name: string; greeting: string }> = {
  marigold: { name: 'Marigold', greeting: "Rain again, eh? Sit, sit. Tea's hot, gossip's hotter." },
  tobias: {
    name: 'Tobias Wren',
    greeting: 'Mind the stairs, there are one hundred and twelve of them, and each one complains.',
  },
  juniper: { name: 'Juniper', greeting: 'Hold this corner of the map. No, the other corner. Thank you!' },
  saffron: { name: 'Saffron', greeting: 'Pick a card. Any card. No, not that one.' },
  ottilie: { name: 'Ottilie', greeting: 'Tick, tock. You are late, or I am early.' },
}

let folder: string | undefined
let server: TestServer | undefined
afterEach(async () => {
  await server?.stop()
  server = undefined
  if (folder) rmSync(folder, { recursive: true, force: true })
  folder = undefined
})

describe('third-party card shapes', () => {
  it('imports every fixture through the CLI and through HTTP to the same characters', async () => {
    folder = mkdtempSync(join(tmpdir(), 'charpipe-fixtures-'))
    const configPath = join(folder, 'config.yaml')
    writeFileSync(configPath, `characters_dir: ${join(folder, 'characters')}\n`)
    const cli = await runCli([
      'card',
      'import',
      ...cardFiles.map((name) => join(fixtures, name)),
      '--config',
      configPath,
    ])
    expect(cli.stderr).not.toMatch(/error|invalid/i)
    expect(cli.code).toBe(0)
    const ids = cli.stdout.trim().split('\n')
    expect(ids.sort()).toEqual(['juniper', 'marigold', 'ottilie', 'saffron', 'tobias-wren'])
    const fromCli = (await loadConfig(configPath)).config.characters

    server = await startTestServer({ configText: 'characters_dir: {folder}/characters\n' })
    for (const name of cardFiles) {
      const response = await fetch(`${server.url}/api/characters/import`, {
        method: 'POST',
        headers: { 'content-type': name.endsWith('.png') ? 'image/png' : 'application/json' },
        body: readFileSync(join(fixtures, name)),
      })
      expect(response.status).toBe(201)
    }
    const fromHttp = server.charpipe.config.characters
    expect(Object.keys(fromHttp).sort()).toEqual(ids.sort())
    for (const id of ids) {
      expect(fromHttp[id]).toEqual(fromCli[id])
      const key = id === 'tobias-wren' ? 'tobias' : id
      expect(fromCli[id]).toMatchObject({ name: expected[key]!.name, greeting: expected[key]!.greeting })
    }
    expect(fromCli['tobias-wren']!.alternate_greetings).toEqual([
      "Oh, you're back! Welcome, friend.",
      'Well, well, well. Look who it is.',
    ])
    expect(fromCli['tobias-wren']!.lorebook.entries.map((entry) => entry.match_whole_words)).toEqual([
      true,
      true,
    ])
    expect(fromCli.juniper!.lorebook.entries[0]!.keys).toEqual(['地图', 'map'])
    const avatar = await fetch(`${server.url}/api/characters/ottilie/avatar`)
    expect(avatar.headers.get('content-type')).toBe('image/png')
  })
})
