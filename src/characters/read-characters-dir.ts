/**
 * The characters folder (`characters_dir`, by default the data folder's `characters`): one
 * character per id, the file name without extension (see characters-folder.ts for which files make
 * one). A file that cannot be used (bad YAML, a bad card, a block the schema refuses, a name that
 * cannot be an id) is skipped and named, so one bad card among hundreds does not stop the server;
 * the others are used; a folder that cannot be read means no characters from it, also named. Its text is a third party's: it is never `${VAR}`-expanded.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { extname, join } from 'node:path'
import { parseConfigText } from '../config/parse-config-text.js'
import { characterIdKeySchema, characterSchema } from '../config/schema.js'
import { CharpipeError, type ConfigIssue, InvalidConfigError } from '../shared/errors.js'
import { characterFileExtensions, resolveCharactersDir } from './characters-folder.js'

/** Reads a card's bytes as a character block (the card importer's `importCharacterCard`). */
export type ImportCardFile = (
  bytes: Uint8Array,
  contentType: 'application/json' | 'image/png',
) => { character: Record<string, unknown> }

export interface ReadCharactersDirOptions {
  dir: string
  importCard: ImportCardFile
  /** A missing folder means no characters (the default folder before the first import). */
  optional?: boolean
}

export interface ReadCharactersDirResult {
  /** The character blocks by id. */
  characters: Record<string, Record<string, unknown>>
  /** The files left out, each named with why. */
  skipped: ConfigIssue[]
}

/** The file that describes each id: its YAML or JSON file, else its PNG card; several: a problem. */
function pickCharacterFiles(names: string[]): Map<string, string[]> {
  const byId = new Map<string, string[]>()
  for (const name of names) {
    const extension = extname(name).toLowerCase()
    const described = (characterFileExtensions as readonly string[]).includes(extension)
    if (!described && extension !== '.png') continue
    const id = name.slice(0, -extension.length)
    const files = byId.get(id) ?? []
    files.push(name)
    byId.set(id, files)
  }
  for (const [id, files] of byId) {
    const described = files.filter((name) => extname(name).toLowerCase() !== '.png')
    // A PNG beside a YAML or JSON file is its avatar, not a second character file.
    byId.set(id, described.length > 0 ? described : files)
  }
  return byId
}

function describeError(error: CharpipeError): string {
  return error instanceof InvalidConfigError
    ? error.issues.map((issue) => (issue.path ? `${issue.path}: ${issue.message}` : issue.message)).join('; ')
    : error.message
}

function readCharacterFile(dir: string, name: string, importCard: ImportCardFile): Record<string, unknown> {
  const path = join(dir, name)
  const bytes = readFileSync(path)
  const extension = extname(name).toLowerCase()
  if (extension === '.yaml' || extension === '.yml') return parseConfigText(bytes.toString('utf8'), path)
  const { character } = importCard(bytes, extension === '.png' ? 'image/png' : 'application/json')
  // The picture stays in its file and is served from there, not copied into the config.
  const { avatar: _picture, ...block } = character
  return block
}

/** The character blocks of the folder by id, and the files that could not be used. */
function readCharactersDir(options: ReadCharactersDirOptions): ReadCharactersDirResult {
  const { dir } = options
  let names: string[]
  try {
    names = readdirSync(dir).sort()
  } catch (error) {
    const missing = (error as NodeJS.ErrnoException).code === 'ENOENT'
    if (missing && options.optional) return { characters: {}, skipped: [] }
    // The server starts without them, and says why: the first import creates the folder.
    const reason = missing ? 'no such folder (yet)' : String(error)
    return { characters: {}, skipped: [{ path: 'characters_dir', message: `cannot read ${dir}: ${reason}` }] }
  }
  const characters: Record<string, Record<string, unknown>> = {}
  const skipped: ConfigIssue[] = []
  for (const [id, files] of pickCharacterFiles(names)) {
    const path = `characters_dir: ${files[0]}`
    if (!characterIdKeySchema.safeParse(id).success) {
      skipped.push({ path, message: `"${id}" cannot be a character id (letters, digits, _ . -; at most 64)` })
      continue
    }
    if (files.length > 1) {
      skipped.push({ path, message: `more than one file for the character "${id}": ${files.join(', ')}` })
      continue
    }
    let block: Record<string, unknown>
    try {
      block = readCharacterFile(dir, files[0]!, options.importCard)
    } catch (error) {
      if (!CharpipeError.isInstance(error)) throw error
      skipped.push({ path, message: describeError(error) })
      continue
    }
    const checked = characterSchema.safeParse(block)
    if (!checked.success) {
      const problems = checked.error.issues
        .slice(0, 3)
        .map((issue) => `${issue.path.map(String).join('.') || '(the file)'}: ${issue.message}`)
      skipped.push({ path, message: problems.join('; ') })
      continue
    }
    characters[id] = block
  }
  return { characters, skipped }
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
}

/** `over` merged into `base`: mappings key by key, anything else (lists too) replaced. */
function mergeDeep(base: Record<string, unknown>, over: Record<string, unknown>): Record<string, unknown> {
  const result: Record<string, unknown> = { ...base }
  for (const [key, value] of Object.entries(over)) {
    const current = result[key]
    result[key] = isPlainObject(current) && isPlainObject(value) ? mergeDeep(current, value) : value
  }
  return result
}

export interface MergeCharactersDirResult {
  value: unknown
  /** The folder's files that were left out, each named with why (reported as warnings). */
  skipped: ConfigIssue[]
}

/**
 * The config with the characters of its characters folder put into `characters`: the entry a config
 * gives for the same id is merged over its file (so a change made through the admin API, kept in
 * the config file, applies over a card).
 */
export function mergeCharactersDir(raw: unknown, importCard: ImportCardFile): MergeCharactersDirResult {
  if (!isPlainObject(raw)) return { value: raw, skipped: [] }
  const folder = resolveCharactersDir(raw)
  const read = readCharactersDir({ dir: folder.dir, importCard, optional: folder.isDefault })
  const fromDir = read.characters
  if (Object.keys(fromDir).length === 0) return { value: raw, skipped: read.skipped }
  const given = isPlainObject(raw.characters) ? raw.characters : {}
  // The config's own characters first, in its order, then the folder's.
  const characters: Record<string, unknown> = {}
  for (const [id, block] of Object.entries(given)) {
    const file = fromDir[id]
    characters[id] = file && isPlainObject(block) ? mergeDeep(file, block) : block
  }
  for (const [id, file] of Object.entries(fromDir)) if (!Object.hasOwn(characters, id)) characters[id] = file
  return { value: { ...raw, characters }, skipped: read.skipped }
}
