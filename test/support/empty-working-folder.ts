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
