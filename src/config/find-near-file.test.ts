import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { findNearFile } from './find-near-file.js'

let folder: string

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'charpipe-near-'))
  await writeFile(join(folder, 'custom.yaml'), '')
  await writeFile(join(folder, 'config.yaml'), '')
  await mkdir(join(folder, 'configs.yaml'))
})
afterAll(async () => {
  await rm(folder, { recursive: true, force: true })
})

describe('findNearFile', () => {
  it('prefers the same name with another config extension', async () => {
    expect(await findNearFile(join(folder, 'custom.yml'))).toBe(join(folder, 'custom.yaml'))
    expect(await findNearFile(join(folder, 'config.json'))).toBe(join(folder, 'config.yaml'))
  })

  it('otherwise names a file with a near name, written as the path was', async () => {
    expect(await findNearFile(join(folder, 'conifg.yaml'))).toBe(join(folder, 'config.yaml'))
  })

  it('names nothing when no file is near, or the folder does not exist', async () => {
    expect(await findNearFile(join(folder, 'persona.toml'))).toBeUndefined()
    expect(await findNearFile(join(folder, 'missing', 'config.yaml'))).toBeUndefined()
  })
})
