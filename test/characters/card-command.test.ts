/**
 * `charpipe card import FILE…` as a child process from source: cards land in the config file, or in
 * `characters_dir` when one is set, each id printed; a bad card is named and nothing is written.
 * `charpipe chat --character ID` then talks with one, opened with its greeting.
 */
import { spawn } from 'node:child_process'
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { base64Json, makeCardPng, makeCardV2, makeCardV3 } from '../../src/characters/cards/card-factories.js'
import { loadConfig } from '../../src/config/load-config.js'

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../..')
let folder: string

beforeEach(() => {
  folder = mkdtempSync(join(tmpdir(), 'charpipe-card-'))
})
afterEach(() => rmSync(folder, { recursive: true, force: true }))

function runCli(
  args: string[],
  stdin = '',
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/entry.ts', ...args], { cwd: repoRoot })
  child.stdin.end(stdin)
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (chunk) => {
    stdout += chunk
  })
  child.stderr.on('data', (chunk) => {
    stderr += chunk
  })
  return new Promise((done) => child.on('close', (code) => done({ code, stdout, stderr })))
}

function writeCards(): { json: string; png: string } {
  const json = join(folder, 'seraphina.json')
  writeFileSync(json, JSON.stringify(makeCardV2()))
  const png = join(folder, 'luna.png')
  writeFileSync(png, makeCardPng({ ccv3: base64Json(makeCardV3({ name: 'Luna' })) }))
  return { json, png }
}

describe('charpipe card import', () => {
  it('writes the characters into the config file and prints their ids', async () => {
    const config = join(folder, 'config.yaml')
    writeFileSync(config, '# my server\ncharacter:\n  name: 小助手\n')
    const { json, png } = writeCards()
    const result = await runCli(['card', 'import', json, png, json, '--config', config])
    expect(result.stderr).toBe('')
    expect(result.code).toBe(0)
    expect(result.stdout.trim().split('\n')).toEqual(['seraphina', 'luna', 'seraphina-2'])
    const text = readFileSync(config, 'utf8')
    expect(text.startsWith('# my server\n')).toBe(true)
    const loaded = await loadConfig(config)
    expect(Object.keys(loaded.config.characters)).toEqual(['seraphina', 'luna', 'seraphina-2'])
    expect(loaded.config.characters.luna!.avatar).toMatch(/^data:image\/png;base64,/)
  })

  it('copies the cards into characters_dir when one is set', async () => {
    const dir = join(folder, 'characters')
    mkdirSync(dir)
    const config = join(folder, 'config.yaml')
    writeFileSync(config, `characters_dir: ${dir}\n`)
    const { json, png } = writeCards()
    const result = await runCli(['card', 'import', json, png, '--config', config])
    expect(result.code).toBe(0)
    expect(result.stdout.trim().split('\n')).toEqual(['seraphina', 'luna'])
    expect(readdirSync(dir).sort()).toEqual(['luna.png', 'seraphina.json'])
    expect(readFileSync(config, 'utf8')).toBe(`characters_dir: ${dir}\n`)
    const loaded = await loadConfig(config)
    expect(loaded.config.characters.seraphina!.name).toBe('Seraphina')
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
    // One of the card's greetings, chosen at random: first_mes or an alternate.
    expect(lines[1]).toMatch(
      /^\[平静\] (\*Seraphina kneels beside you\.\* You are safe now\.|Welcome back, User\.|Oh! A visitor\.)$/,
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
