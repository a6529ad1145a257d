/**
 * `charpipe card import FILE…` as a child process from source: cards land in the characters folder
 * (the data folder's, or `characters_dir`), each id printed, config.yaml untouched; importing again
 * updates; a bad card is named and nothing is written.
 * `charpipe chat --character ID` then talks with one, opened with its greeting.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { loadConfig } from '../../src/characters/load-config.js'
import { encodeCardChunkText, makeCardPng, makeCardV2, makeCardV3 } from '../../src/testing/index.js'
import { runCli } from '../support/run-cli.js'

let folder: string

beforeEach(() => {
  folder = mkdtempSync(join(tmpdir(), 'charpipe-card-'))
})
afterEach(() => rmSync(folder, { recursive: true, force: true }))

function writeCards(): { json: string; png: string } {
  const json = join(folder, 'seraphina.json')
  writeFileSync(json, JSON.stringify(makeCardV2()))
  const png = join(folder, 'luna.png')
  writeFileSync(png, makeCardPng({ ccv3: encodeCardChunkText(makeCardV3({ name: 'Luna' })) }))
  return { json, png }
}

describe('charpipe card import', () => {
  it('keeps the cards in the data folder, leaves config.yaml alone, updates on a second import', async () => {
    const config = join(folder, 'config.yaml')
    const text = `# my server\ncharacter:\n  name: 小助手\nstorage:\n  sqlite_path: ${join(folder, 'data', 'charpipe.db')}\n`
    writeFileSync(config, text)
    const { json, png } = writeCards()
    const result = await runCli(['card', 'import', json, png, json, '--config', config])
    expect(result.stderr).toBe('')
    expect(result.code).toBe(0)
    expect(result.stdout.trim().split('\n')).toEqual(['seraphina', 'luna', 'seraphina'])
    expect(readFileSync(config, 'utf8')).toBe(text)
    const dir = join(folder, 'data', 'characters')
    expect(readdirSync(dir).sort()).toEqual(['luna.json', 'luna.png', 'seraphina.json'])
    // The picture is a plain picture file: the card is in luna.json.
    expect(readFileSync(join(dir, 'luna.png')).includes('ccv3')).toBe(false)
    const loaded = await loadConfig(config)
    expect(Object.keys(loaded.config.characters)).toEqual(['luna', 'seraphina'])
    expect(loaded.config.characters.luna!.avatar).toBe('')

    const again = await runCli(['card', 'import', json, '--as-new', '--config', config])
    expect(again.stdout.trim()).toBe('seraphina-2')
    const renamed = join(folder, 'seraphina.json')
    writeFileSync(renamed, JSON.stringify(makeCardV2({ scenario: 'A new scenario.' })))
    expect((await runCli(['card', 'import', renamed, '--config', config])).stdout.trim()).toBe('seraphina')
    const updated = await loadConfig(config)
    expect(Object.keys(updated.config.characters).sort()).toEqual(['luna', 'seraphina', 'seraphina-2'])
    expect(updated.config.characters.seraphina!.scenario).toBe('A new scenario.')
  })

  it('uses characters_dir when one is set, and replaces an entry an earlier import left in config.yaml', async () => {
    const dir = join(folder, 'characters')
    mkdirSync(dir)
    const config = join(folder, 'config.yaml')
    writeFileSync(
      config,
      `characters_dir: ${dir}\ncharacters:\n  seraphina:\n    name: Seraphina\n    persona: old\n`,
    )
    expect(Object.keys((await loadConfig(config)).config.characters)).toEqual(['seraphina'])
    const { json, png } = writeCards()
    const result = await runCli(['card', 'import', json, png, '--config', config])
    expect(result.code).toBe(0)
    expect(result.stdout.trim().split('\n')).toEqual(['seraphina', 'luna'])
    expect(readdirSync(dir).sort()).toEqual(['luna.json', 'luna.png', 'seraphina.json'])
    expect(readFileSync(config, 'utf8')).not.toContain('persona: old')
    const loaded = await loadConfig(config)
    expect(loaded.config.characters.seraphina!.persona).toContain('guardian of an enchanted forest')
    expect(loaded.config.characters.luna!.name).toBe('Luna')
  })

  it('names a bad card and writes nothing', async () => {
    const config = join(folder, 'config.yaml')
    writeFileSync(config, 'character:\n  name: 小助手\n')
    const { json } = writeCards()
    const bad = join(folder, 'broken.png')
    writeFileSync(bad, 'not a png')
    const result = await runCli(['card', 'import', json, bad, '--config', config])
    expect(result.code).toBe(1)
    expect(result.stderr).toContain(`${bad}:`)
    expect(result.stderr).toContain('nothing was imported')
    expect(result.stdout).toBe('')
    expect(readFileSync(config, 'utf8')).toBe('character:\n  name: 小助手\n')
  })
})

describe('charpipe chat --character', () => {
  it('talks with an imported character, opened with its greeting', async () => {
    const config = join(folder, 'config.yaml')
    writeFileSync(
      config,
      `llm: { provider: mock }\nhistory: { store: memory }\nmemory: { enabled: false }\nstorage: { sqlite_path: ${join(folder, 'data', 'charpipe.db')} }\n`,
    )
    const { json } = writeCards()
    expect((await runCli(['card', 'import', json, '--config', config])).code).toBe(0)
    const result = await runCli(['chat', '--config', config, '--character', 'seraphina'], '你好\n')
    expect(result.code).toBe(0)
    const lines = result.stdout.split('\n')
    expect(lines[0]).toContain('Seraphina (mock')
    // One of the card's greetings, chosen at random: first_mes or an alternate. An English card has
    // English emotion labels.
    expect(lines[1]).toMatch(
      /^\[calm\] (\*Seraphina kneels beside you\.\* You are safe now\.|Welcome back, User\.|Oh! A visitor\.)$/,
    )
    expect(result.stdout).toContain('我是Seraphina')
    const preview = await runCli(['preview', '--config', config, '--character', 'seraphina', '你好'])
    expect(preview.code).toBe(0)
    expect(preview.stdout).toContain('── 1. system (system, ')
    expect(preview.stdout).toContain('Seraphina is the guardian')
    const unknown = await runCli(['chat', '--config', config, '--character', 'nobody'], '你好\n')
    expect(unknown.code).toBe(2)
    expect(unknown.stderr).toContain('character "nobody" is not configured')
  })
})
