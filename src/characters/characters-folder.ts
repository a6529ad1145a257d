/**
 * Where characters live on disk and which files make one: `characters_dir`, or when it is empty the
 * `characters` folder of the data folder (beside `storage.sqlite_path`, `./data/characters` by
 * default). A character is one file named after its id: `<id>.yaml` / `.yml` (a character block),
 * `<id>.json` (a Character Card) or `<id>.png` (a card carried by its picture). A picture beside a
 * YAML or JSON file (`<id>.png`, `.jpg`, `.jpeg`, `.webp`, `.gif`) is that character's avatar.
 */
import { existsSync } from 'node:fs'
import { dirname, extname, join } from 'node:path'

const defaultCharactersFolderName = 'characters'
const defaultDataFolder = './data'

export const characterFileExtensions = ['.yaml', '.yml', '.json'] as const
export const avatarTypes: Record<string, string> = {
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.webp': 'image/webp',
  '.gif': 'image/gif',
}

export interface CharactersFolder {
  dir: string
  /** True when no `characters_dir` was set: the folder may not exist yet, which means no characters. */
  isDefault: boolean
}

function readString(value: unknown): string {
  return typeof value === 'string' ? value : ''
}

/** The characters folder of a config (parsed or as the file holds it). */
export function resolveCharactersDir(config: unknown): CharactersFolder {
  const record = (config ?? {}) as Record<string, unknown>
  const given = readString(record.characters_dir)
  if (given) return { dir: given, isDefault: false }
  const storage = (record.storage ?? {}) as Record<string, unknown>
  const sqlitePath = readString(storage.sqlite_path)
  const dataFolder = sqlitePath && sqlitePath !== ':memory:' ? dirname(sqlitePath) : defaultDataFolder
  return { dir: join(dataFolder, defaultCharactersFolderName), isDefault: true }
}

/** The id's picture file in `dir`, or undefined: a picture beside its YAML/JSON file, else a PNG card. */
export function findAvatarFile(dir: string, id: string): string | undefined {
  const described = characterFileExtensions.some((extension) => existsSync(join(dir, `${id}${extension}`)))
  if (!described) {
    const card = join(dir, `${id}.png`)
    return existsSync(card) ? card : undefined
  }
  return Object.keys(avatarTypes)
    .map((extension) => join(dir, `${id}${extension}`))
    .find((path) => existsSync(path))
}

/** The media type of a picture file, by its extension. */
export function readAvatarType(path: string): string {
  return avatarTypes[extname(path).toLowerCase()] ?? 'application/octet-stream'
}
