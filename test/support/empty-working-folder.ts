/**
 * An empty temporary folder for spawned `charpipe` processes to run in: their defaults
 * (`./config.yaml`, `./data/characters`, `./data/charpipe.db`) then name nothing of the checkout, so
 * a card imported on the page there cannot change a test. Made on first use, removed when the test
 * process exits.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

let folder: string | undefined

export function readEmptyWorkingFolder(): string {
  if (folder) return folder
  const made = mkdtempSync(join(tmpdir(), 'charpipe-cwd-'))
  process.once('exit', () => rmSync(made, { recursive: true, force: true }))
  folder = made
  return made
}

let charactersFolder: string | undefined

/**
 * An empty characters folder for configs parsed in tests (`characters_dir`): a config that names
 * none reads `./data/characters` of the checkout, where the page keeps imported cards.
 */
export function readEmptyCharactersFolder(): string {
  if (charactersFolder) return charactersFolder
  const made = mkdtempSync(join(tmpdir(), 'charpipe-characters-'))
  process.once('exit', () => rmSync(made, { recursive: true, force: true }))
  charactersFolder = made
  return made
}
