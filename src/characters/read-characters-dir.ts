/**
 * `characters_dir`: one file per character, the file name (without extension) its id. A `.yaml` /
 * `.yml` file holds a character block; a `.json` or `.png` file is a Character Card V2/V3, read
 * with the card importer. Other files (a README, a picture the cards refer to) are left alone.
 * Every file that cannot be used is reported at once, by name, and then nothing is used.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { extname, join } from 'node:path'
import { parseConfigText } from '../config/parse-config-text.js'
import { characterIdKeySchema } from '../config/schema.js'
import { CharpipeError, type ConfigIssue, InvalidConfigError } from '../shared/errors.js'

/** Reads a card's bytes as a character block (the card importer's `importCharacterCard`). */
export type ImportCardFile = (
  bytes: Uint8Array,
  contentType: 'application/json' | 'image/png',
) => { character: Record<string, unknown> }

const cardTypes: Record<string, 'application/json' | 'image/png'> = {
  '.json': 'application/json',
  '.png': 'image/png',
}

/** What a character file looks like, by extension; undefined: not a character file. */
function kindOf(name: string): 'yaml' | 'application/json' | 'image/png' | undefined {
  const extension = extname(name).toLowerCase()
  if (extension === '.yaml' || extension === '.yml') return 'yaml'
  return cardTypes[extension]
}

export interface ReadCharactersDirOptions {
  dir: string
  importCard: ImportCardFile
}

/** The character blocks of the folder by id; throws InvalidConfigError naming each bad file. */
export function readCharactersDir(
  options: ReadCharactersDirOptions,
): Record<string, Record<string, unknown>> {
  const { dir } = options
  let names: string[]
  try {
    names = readdirSync(dir).sort()
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such folder' : String(error)
    throw new InvalidConfigError([{ path: 'characters_dir', message: `cannot read ${dir}: ${reason}` }])
  }
  const characters: Record<string, Record<string, unknown>> = {}
  const issues: ConfigIssue[] = []
  for (const name of names) {
    const kind = kindOf(name)
    if (!kind) continue
    const id = name.slice(0, -extname(name).length)
    const path = `characters_dir: ${name}`
    if (!characterIdKeySchema.safeParse(id).success) {
      issues.push({ path, message: `"${id}" cannot be a character id (letters, digits, _ . -; at most 64)` })
      continue
    }
    if (Object.hasOwn(characters, id)) {
      issues.push({ path, message: `a second file for the character "${id}"` })
      continue
    }
    try {
      const bytes = readFileSync(join(dir, name))
      characters[id] =
        kind === 'yaml'
          ? parseConfigText(bytes.toString('utf8'), join(dir, name))
          : options.importCard(bytes, kind).character
    } catch (error) {
      if (!CharpipeError.isInstance(error)) throw error
      const message =
        error instanceof InvalidConfigError
          ? error.issues
              .map((issue) => (issue.path ? `${issue.path}: ${issue.message}` : issue.message))
              .join('; ')
          : error.message
      issues.push({ path, message })
    }
  }
  if (issues.length > 0) throw new InvalidConfigError(issues)
  return characters
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

/**
 * The config with the characters of its `characters_dir` put into `characters`: the entry a config
 * gives for the same id is merged over its file (so a change made through the admin API, kept in
 * the config file, applies over a card). Unchanged when no folder is set.
 */
export function mergeCharactersDir(raw: unknown, importCard: ImportCardFile): unknown {
  if (!isPlainObject(raw)) return raw
  const dir = raw.characters_dir
  if (typeof dir !== 'string' || dir === '') return raw
  const fromDir = readCharactersDir({ dir, importCard })
  const given = isPlainObject(raw.characters) ? raw.characters : {}
  const characters: Record<string, unknown> = { ...fromDir }
  for (const [id, block] of Object.entries(given)) {
    const file = fromDir[id]
    characters[id] = file && isPlainObject(block) ? mergeDeep(file, block) : block
  }
  return { ...raw, characters }
}
