/**
 * Keeps an imported card in the characters folder: `<id>.json` (the card as given) and, when it came
 * with one, its picture `<id>.png` beside it. Other files of the id (an older YAML file, a PNG card,
 * a picture of another type) are removed, so the id has one character file. `restore()` puts the
 * folder back as it was, for an import the running config then refuses.
 */
import { randomBytes } from 'node:crypto'
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises'
import { basename, dirname, join } from 'node:path'
import { avatarTypes, characterFileExtensions } from './characters-folder.js'

export interface SaveCharacterCardOptions {
  dir: string
  id: string
  cardJson: string
  picture?: Uint8Array
}

export interface SaveCharacterCardResult {
  /** Puts back the files the save replaced or removed, and removes the ones it added. */
  restore(): Promise<void>
}

/** A reader of the folder (the server's watch, a second server) sees the old file or the new one. */
async function writeFileAtomically(path: string, data: Uint8Array | string): Promise<void> {
  const temporary = join(dirname(path), `.${basename(path)}.${randomBytes(4).toString('hex')}.tmp`)
  try {
    await writeFile(temporary, data)
    await rename(temporary, path)
  } catch (error) {
    await rm(temporary, { force: true })
    throw error
  }
}

async function readIfThere(path: string): Promise<Uint8Array | undefined> {
  try {
    return await readFile(path)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined
    throw error
  }
}

export async function saveCharacterCard(options: SaveCharacterCardOptions): Promise<SaveCharacterCardResult> {
  const { dir, id } = options
  await mkdir(dir, { recursive: true })
  const paths = [...characterFileExtensions, ...Object.keys(avatarTypes)].map((extension) =>
    join(dir, `${id}${extension}`),
  )
  const before = new Map<string, Uint8Array | undefined>()
  for (const path of paths) before.set(path, await readIfThere(path))
  const cardPath = join(dir, `${id}.json`)
  const picturePath = join(dir, `${id}.png`)
  for (const path of paths) if (path !== cardPath && path !== picturePath) await rm(path, { force: true })
  if (options.picture) await writeFileAtomically(picturePath, options.picture)
  else await rm(picturePath, { force: true })
  await writeFileAtomically(cardPath, options.cardJson)
  return {
    async restore() {
      for (const [path, bytes] of before) {
        if (bytes) await writeFileAtomically(path, bytes)
        else await rm(path, { force: true })
      }
    },
  }
}
