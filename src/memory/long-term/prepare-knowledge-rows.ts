/**
 * A knowledge document's rows, ready to store: checked against the size limit first, then chunked
 * and segmented (its index terms) in slices of a few milliseconds with the event loop free between
 * them, so megabytes of text posted to `/api/kb` never stall the other sessions of the server. The
 * stores write what this returns in short transactions (`writeInSlices`).
 */
import { randomUUID } from 'node:crypto'
import { BadRequestError } from '../../shared/errors.js'
import { generateKnowledgeChunks } from './chunk-knowledge-text.js'
import { createKnowledgeChunkRow } from './create-memory-item-row.js'
import type { MemoryItemRow } from './memory-item-row.js'
import type { IndexedFields } from './memory-term-index.js'
import { segmentIndexedFields } from './segment-indexed-fields.js'
import { validateKnowledgeDocument } from './validate-memory-input.js'

/** Longest run of work between two pauses. */
const knowledgeSliceMs = 8

export interface PreparedKnowledgeRow {
  row: Omit<MemoryItemRow, 'seq'>
  fields: IndexedFields
}

export interface PrepareKnowledgeRowsOptions {
  document: { name: string; text: string }
  /** The write's time. */
  at: number
  /** Longest text accepted, in characters (`memory.max_knowledge_chars`). */
  maxChars: number
}

/** Refuses a document over the limit, naming the limit, before any work is done on it. */
function checkKnowledgeSize(document: { name: string; text: string }, maxChars: number): void {
  if (document.text.length > maxChars) {
    throw new BadRequestError(
      `knowledge: "${document.name.slice(0, 200)}" has ${document.text.length} characters, more than memory.max_knowledge_chars (${maxChars}); split it or raise the limit`,
    )
  }
}

export interface PrepareKnowledgeRowsResult {
  /** The new document's id. */
  id: string
  rows: PreparedKnowledgeRow[]
}

/** Checks the document (a name, some text, within the limit), then its rows under a new id. */
export async function prepareKnowledgeRows(
  options: PrepareKnowledgeRowsOptions,
): Promise<PrepareKnowledgeRowsResult> {
  const { document, at } = options
  validateKnowledgeDocument(document)
  checkKnowledgeSize(document, options.maxChars)
  const documentId = `kb_${randomUUID()}`
  const prepared: PreparedKnowledgeRow[] = []
  const pause = createPause()
  let index = 0
  for (const chunk of generateKnowledgeChunks(document.text)) {
    const row = createKnowledgeChunkRow({
      documentId,
      documentName: document.name,
      chunk,
      index: index++,
      at,
    })
    prepared.push({ row, fields: segmentIndexedFields(row) })
    await pause()
  }
  return { id: documentId, rows: prepared }
}

/** Runs `write` over `items` in batches, each within about one slice, the event loop free between. */
export async function writeInSlices<Item>(
  items: readonly Item[],
  write: (batch: readonly Item[]) => void,
): Promise<void> {
  const pause = createPause()
  let batch = 16
  for (let start = 0; start < items.length; ) {
    const begun = performance.now()
    write(items.slice(start, start + batch))
    start += batch
    const spent = performance.now() - begun
    // Aim each batch at one slice, from how long the last one took.
    batch = Math.max(1, Math.min(4096, Math.floor((batch * knowledgeSliceMs) / Math.max(spent, 0.1))))
    if (start < items.length) await pause(true)
  }
}

/** A function that lets the event loop run when a slice has been used up (or always, when forced). */
function createPause(): (force?: boolean) => Promise<void> {
  let sliceStart = performance.now()
  return async (force = false) => {
    if (!force && performance.now() - sliceStart < knowledgeSliceMs) return
    await new Promise((resolve) => setImmediate(resolve))
    sliceStart = performance.now()
  }
}
