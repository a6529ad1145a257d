/**
 * `charpipe kb add FILE… | list | remove ID [--config FILE]`: manages the knowledge base stored
 * beside long-term memory (text and Markdown files, chunked by headings and paragraphs).
 */
import { readFile } from 'node:fs/promises'
import { createMemoryStore } from '../../memory/memory-store-factory.js'
import type { MemoryStore } from '../../memory/types.js'
import { BadRequestError } from '../../shared/errors.js'
import { loadCliConfig, runCommand } from '../load-cli-config.js'
import { parseActionArgs } from '../parse-action-args.js'

export const summary = 'Manage the knowledge base: add text/Markdown files, list, remove'
export const usage = 'charpipe kb add FILE… | kb list | kb remove ID [--config FILE]'

export function run(args: string[]): Promise<number> {
  return runCommand(async () => {
    const parsed = parseActionArgs({ args, command: 'kb', actions: ['add', 'list', 'remove'], usage })
    if (!parsed) return 2
    const { action, rest } = parsed
    if (action === 'add' && rest.length === 0) {
      console.error('charpipe kb add: name at least one file')
      return 2
    }
    if (action === 'remove' && rest.length !== 1) {
      console.error('charpipe kb remove: name exactly one document id (see `charpipe kb list`)')
      return 2
    }
    const { config } = await loadCliConfig(parsed.configPath)
    const store = await createMemoryStore(config)
    if (!store) {
      console.error('charpipe kb: memory is disabled in the config (memory.enabled: false)')
      return 1
    }
    try {
      if (action === 'add') return await addFiles(store, rest)
      if (action === 'list') return await listDocuments(store)
      return await removeDocument(store, rest[0] as string)
    } finally {
      await store.close()
    }
  })
}

async function addFiles(store: MemoryStore, files: string[]): Promise<number> {
  let failed = 0
  for (const file of files) {
    let text: string
    try {
      text = await readFile(file, 'utf8')
    } catch (error) {
      console.error(`charpipe kb add: cannot read ${file}: ${(error as Error).message}`)
      failed++
      continue
    }
    if (!text.trim()) {
      console.error(`charpipe kb add: ${file} is empty; skipped`)
      failed++
      continue
    }
    try {
      const document = await store.addKnowledge({ name: file, text })
      console.log(`added ${document.id}  ${file}  (${document.chunks} chunks)`)
    } catch (error) {
      // A file refused (over memory.max_knowledge_chars) does not stop the others.
      if (!BadRequestError.isInstance(error)) throw error
      console.error(`charpipe kb add: ${error.message}; skipped`)
      failed++
    }
  }
  return failed ? 1 : 0
}

async function listDocuments(store: MemoryStore): Promise<number> {
  const documents = await store.listKnowledge()
  if (documents.length === 0) {
    console.log('the knowledge base is empty')
    return 0
  }
  for (const document of documents) {
    const added = new Date(document.createdAt).toISOString()
    console.log(`${document.id}  ${String(document.chunks).padStart(4)} chunks  ${added}  ${document.name}`)
  }
  return 0
}

async function removeDocument(store: MemoryStore, id: string): Promise<number> {
  if (await store.removeKnowledge(id)) {
    console.log(`removed ${id}`)
    return 0
  }
  console.error(`charpipe kb remove: no document ${id} (see \`charpipe kb list\`)`)
  return 1
}
