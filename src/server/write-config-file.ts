/**
 * Writes config changes back to the YAML file: the parsed Document is edited in place (so comments
 * and key order survive where the `yaml` library can keep them), then written to a temporary file
 * beside it and renamed over it, so a reader never sees half a file.
 */
import { randomBytes } from 'node:crypto'
import { rename, rm, writeFile } from 'node:fs/promises'
import { basename, dirname, join } from 'node:path'
import { Document, isCollection, parseDocument } from 'yaml'
import type { ConfigChange } from './collect-config-changes.js'

/** The file's text with every change applied. */
export function applyChangesToYaml(text: string, changes: ConfigChange[]): string {
  const document = text.trim() === '' ? new Document({}) : parseDocument(text)
  if (!isCollection(document.contents)) document.contents = document.createNode({})
  for (const change of changes) {
    if (change.remove) {
      document.deleteIn(change.path)
      continue
    }
    makeRoomFor(document, change.path)
    document.setIn(change.path, document.createNode(change.value))
  }
  return document.toString()
}

// `setIn` cannot walk through a scalar (`embeddings: null`): replace such a parent with a mapping.
function makeRoomFor(document: Document, path: string[]): void {
  for (let depth = 1; depth < path.length; depth++) {
    const parentPath = path.slice(0, depth)
    const node = document.getIn(parentPath, true)
    if (node !== undefined && !isCollection(node)) document.setIn(parentPath, document.createNode({}))
  }
}

/** Writes `text` to `path` atomically (temporary file in the same folder, then rename). */
export async function writeFileAtomically(path: string, text: string): Promise<void> {
  const temporary = join(
    dirname(path),
    `.${basename(path)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`,
  )
  try {
    await writeFile(temporary, text, { encoding: 'utf8', mode: 0o600 })
    await rename(temporary, path)
  } catch (error) {
    await rm(temporary, { force: true })
    throw error
  }
}
