/**
 * Reads a local attachment, but only from inside `assets.dirs`: the reference and every folder are
 * resolved to real paths (symlinks and `..` followed) before the containment check, so neither a
 * link nor a relative path can reach outside. Files above `assets.max_bytes` are refused unread.
 * It never throws: a reference that cannot be read (a `file:` URL naming another host, a file that
 * vanished or cannot be opened) is a refusal with a reason, so one bad reference costs only itself.
 */
import { open, realpath } from 'node:fs/promises'
import { isAbsolute, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { sniffMediaType } from './sniff-media-type.js'

export interface ReadLocalAssetOptions {
  reference: string
  dirs: readonly string[]
  maxBytes: number
}

export type ReadLocalAssetResult =
  | { ok: true; bytes: Buffer; mediaType: string | undefined; path: string }
  | { ok: false; reason: string }

function isInside(folder: string, path: string): boolean {
  const between = relative(folder, path)
  return between === '' || (!between.startsWith('..') && !isAbsolute(between))
}

async function realpathOrUndefined(path: string): Promise<string | undefined> {
  try {
    return await realpath(path)
  } catch {
    return undefined
  }
}

async function findInside(reference: string, dirs: readonly string[]): Promise<string | undefined> {
  const folders = (await Promise.all(dirs.map((dir) => realpathOrUndefined(resolve(dir))))).filter(
    (folder) => folder !== undefined,
  )
  const candidates = isAbsolute(reference) ? [reference] : dirs.map((dir) => resolve(dir, reference))
  for (const candidate of candidates) {
    const real = await realpathOrUndefined(candidate)
    if (real && folders.some((folder) => isInside(folder, real))) return real
  }
  return undefined
}

function toPath(reference: string): string | undefined {
  if (!reference.startsWith('file:')) return reference
  try {
    return fileURLToPath(reference)
  } catch {
    return undefined
  }
}

export async function readLocalAsset(options: ReadLocalAssetOptions): Promise<ReadLocalAssetResult> {
  const reference = toPath(options.reference)
  if (reference === undefined) {
    return {
      ok: false,
      reason: `local file "${options.reference}" refused: not a file: URL of this machine`,
    }
  }
  if (options.dirs.length === 0) {
    return { ok: false, reason: `local file "${options.reference}" refused: assets.dirs is empty` }
  }
  const path = await findInside(reference, options.dirs)
  if (!path) {
    return {
      ok: false,
      reason: `local file "${options.reference}" refused: not found inside assets.dirs (links and ".." are resolved first)`,
    }
  }
  try {
    return await readInside(path, options)
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'error'
    return { ok: false, reason: `local file "${options.reference}" could not be read (${code})` }
  }
}

async function readInside(path: string, options: ReadLocalAssetOptions): Promise<ReadLocalAssetResult> {
  const handle = await open(path, 'r')
  try {
    const info = await handle.stat()
    if (!info.isFile())
      return { ok: false, reason: `local file "${options.reference}" refused: not a regular file` }
    if (info.size > options.maxBytes) {
      return {
        ok: false,
        reason: `local file "${options.reference}" refused: ${info.size} bytes is over assets.max_bytes (${options.maxBytes})`,
      }
    }
    const bytes = await handle.readFile()
    return { ok: true, bytes, mediaType: sniffMediaType(bytes), path }
  } finally {
    await handle.close()
  }
}
