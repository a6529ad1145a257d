/**
 * For a config path that does not exist: a file beside it with a near name (`custom.yaml` for
 * `custom.yml`, `config.yaml` for `conifg.yaml`), written the way the user wrote the path.
 */
import { readdir } from 'node:fs/promises'
import { basename, dirname, extname, join } from 'node:path'
import { findClosestName } from './find-closest-name.js'

const configExtensions = ['.yaml', '.yml', '.json']

/** The near file's path, or undefined when the folder has none (or cannot be read). */
export async function findNearFile(path: string): Promise<string | undefined> {
  let names: string[]
  try {
    const entries = await readdir(dirname(path), { withFileTypes: true })
    names = entries.filter((entry) => entry.isFile()).map((entry) => entry.name)
  } catch {
    return undefined
  }
  const wanted = basename(path)
  const stem = wanted.slice(0, wanted.length - extname(wanted).length)
  // The same name with another config extension wins over a merely similar name.
  const sameStem = configExtensions.map((extension) => stem + extension).find((name) => names.includes(name))
  const near = sameStem ?? findClosestName(wanted, names)
  if (near === undefined) return undefined
  return path.includes('/') || path.includes('\\') ? join(dirname(path), near) : near
}
