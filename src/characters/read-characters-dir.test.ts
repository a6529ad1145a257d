import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { loadConfig } from '../config/load-config.js'
import { base64Json, makeCardPng, makeCardV2, makeCardV3 } from './cards/card-factories.js'

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

  it('reads Character Cards as .json and .png, and names a bad card', async () => {
    const dir = await writeFolder({ 'seraphina.json': JSON.stringify(makeCardV2()) })
    await writeFile(
      join(dir, 'luna.png'),
      makeCardPng({ ccv3: base64Json(makeCardV3({ name: 'Luna', first_mes: 'Hi, {{user}}.' })) }),
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
    expect(config.characters.luna!.avatar).toMatch(/^data:image\/png;base64,/)

    await writeFile(join(dir, 'broken.json'), '{"spec": "chara_card_v2", "data": ')
    const failure = String(await loadConfig(configPath()).catch((error: unknown) => error))
    expect(failure).toContain('characters_dir: broken.json:')
    expect(failure).toContain('not valid JSON')
  })

  it('names every file that cannot be used, and the folder when it is missing', async () => {
    const dir = await writeFolder({
      'good.yaml': 'name: Good\n',
      '.hidden.yaml': 'name: Hidden\n',
      'broken.yaml': 'name: [\n',
    })
    await writeFile(configPath(), `characters_dir: ${dir}\n`)
    const failure = String(await loadConfig(configPath()).catch((error: unknown) => error))
    expect(failure).toContain('characters_dir: .hidden.yaml: ".hidden" cannot be a character id')
    expect(failure).toContain('characters_dir: broken.yaml: line 2')
    await rm(join(dir, '.hidden.yaml'))
    await writeFile(join(dir, 'broken.yaml'), 'name: Typo\nnmae: x\n')
    const typo = String(await loadConfig(configPath()).catch((error: unknown) => error))
    expect(typo).toContain('characters.broken')
    expect(typo).toContain('nmae')
    await writeFile(configPath(), `characters_dir: ${join(dir, 'nowhere')}\n`)
    const noFolder = await loadConfig(configPath()).catch((error: unknown) => error)
    expect(String(noFolder)).toMatch(/characters_dir: cannot read .*nowhere: no such folder/)
  })
})
