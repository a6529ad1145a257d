import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { loadConfig } from '../characters/load-config.js'
import { createLogger } from '../shared/logger.js'
import { encodeCardChunkText, makeCardPng, makeCardV2, makeCardV3, makePlainPng } from '../testing/index.js'

const silent = createLogger({ level: 'silent' })

let folder: string | undefined
afterEach(async () => {
  if (folder) await rm(folder, { recursive: true, force: true })
  folder = undefined
})

/** A folder with `characters/` holding `files`; returns the characters folder. */
async function writeFolder(files: Record<string, string>): Promise<string> {
  folder = await mkdtemp(join(tmpdir(), 'charpipe-characters-'))
  const dir = join(folder, 'characters')
  await mkdir(dir)
  for (const [name, text] of Object.entries(files)) await writeFile(join(dir, name), text)
  return dir
}

const configPath = () => join(folder!, 'config.yaml')

describe('characters_dir', () => {
  it('adds one character per YAML file, its id the file name, with config entries merged over it', async () => {
    const dir = await writeFolder({
      'alice.yaml': 'name: Alice\npersona: 画家\nemotions: [开心, 平静]\n',
      'bob.yml': 'name: Bob\n',
      'README.md': 'not a character',
    })
    await writeFile(
      configPath(),
      `characters_dir: ${dir}\ncharacters:\n  alice:\n    persona: 雕塑家\n  carol:\n    name: Carol\n`,
    )
    const { config } = await loadConfig(configPath())
    expect(Object.keys(config.characters).sort()).toEqual(['alice', 'bob', 'carol'])
    expect(config.characters.alice).toMatchObject({
      name: 'Alice',
      persona: '雕塑家',
      emotions: ['开心', '平静'],
    })
    expect(config.characters.bob!.name).toBe('Bob')
    expect(config.character.name).toBe('小助手')
  })

  it('reads Character Cards as .json and .png, and skips a bad card naming it', async () => {
    const dir = await writeFolder({ 'seraphina.json': JSON.stringify(makeCardV2()) })
    await writeFile(
      join(dir, 'luna.png'),
      makeCardPng({ ccv3: encodeCardChunkText(makeCardV3({ name: 'Luna', first_mes: 'Hi, {{user}}.' })) }),
    )
    await writeFile(configPath(), `characters_dir: ${dir}\ncharacters:\n  luna:\n    user_name: 旅人\n`)
    const { config } = await loadConfig(configPath())
    expect(config.characters.seraphina).toMatchObject({
      name: 'Seraphina',
      greeting: expect.stringContaining('You are safe now'),
    })
    expect(config.characters.seraphina!.alternate_greetings).toHaveLength(2)
    expect(config.characters.luna).toMatchObject({
      name: 'Luna',
      greeting: 'Hi, {{user}}.',
      user_name: '旅人',
    })
    // The picture stays in its file: the config holds no data URI.
    expect(config.characters.luna!.avatar).toBe('')

    await writeFile(join(dir, 'broken.json'), '{"spec": "chara_card_v2", "data": ')
    const { config: withBroken, warnings } = await loadConfig(configPath(), { logger: silent })
    expect(Object.keys(withBroken.characters).sort()).toEqual(['luna', 'seraphina'])
    expect(warnings).toContainEqual({
      path: 'characters_dir: broken.json',
      message: expect.stringContaining('not valid JSON'),
    })
  })

  it('skips every file that cannot be used, naming each, and keeps the rest', async () => {
    const dir = await writeFolder({
      'good.yaml': 'name: Good\n',
      '.hidden.yaml': 'name: Hidden\n',
      'broken.yaml': 'name: [\n',
      'typo.yaml': 'name: Typo\nnmae: x\n',
      'huge.json': JSON.stringify({ name: 'x'.repeat(100_000) }),
    })
    await writeFile(configPath(), `characters_dir: ${dir}\n`)
    const { config, warnings } = await loadConfig(configPath(), { logger: silent })
    expect(Object.keys(config.characters)).toEqual(['good'])
    const messages = warnings.map((warning) => `${warning.path}: ${warning.message}`)
    expect(messages).toContainEqual(
      expect.stringContaining('characters_dir: .hidden.yaml: skipped: ".hidden" cannot be a character id'),
    )
    expect(messages).toContainEqual(expect.stringMatching(/characters_dir: broken\.yaml: skipped: line 2/))
    expect(messages).toContainEqual(expect.stringMatching(/characters_dir: typo\.yaml: skipped: .*nmae/))
    expect(messages).toContainEqual(
      expect.stringMatching(/characters_dir: huge\.json: skipped: .*name: .*200/),
    )
    await writeFile(configPath(), `characters_dir: ${join(dir, 'nowhere')}\n`)
    const noFolder = await loadConfig(configPath(), { logger: silent })
    expect(noFolder.config.characters).toEqual({})
    expect(noFolder.warnings[0]!.message).toMatch(/cannot read .*nowhere: no such folder/)
  })

  it("reads the data folder's characters when no characters_dir is set, and a missing one means none", async () => {
    folder = await mkdtemp(join(tmpdir(), 'charpipe-characters-'))
    await writeFile(configPath(), `storage:\n  sqlite_path: ${join(folder, 'data', 'charpipe.db')}\n`)
    expect(Object.keys((await loadConfig(configPath())).config.characters)).toEqual([])
    await mkdir(join(folder, 'data', 'characters'), { recursive: true })
    // A V1 card (fields at the top level), a "V3 template" (spec, no data) and a picture beside a card.
    await writeFile(
      join(folder, 'data', 'characters', 'old.json'),
      JSON.stringify({ name: 'Old', first_mes: 'Hey.' }),
    )
    await writeFile(
      join(folder, 'data', 'characters', 'flat.json'),
      JSON.stringify({ spec: 'chara_card_v3', spec_version: '3.0', name: 'Flat', description: 'Flat card.' }),
    )
    await writeFile(join(folder, 'data', 'characters', 'flat.png'), makePlainPng())
    const { config } = await loadConfig(configPath())
    expect(config.characters.old).toMatchObject({ name: 'Old', greeting: 'Hey.' })
    expect(config.characters.flat).toMatchObject({
      name: 'Flat',
      persona: 'Flat card.',
      avatar: '',
      card: {},
    })
  })
})
