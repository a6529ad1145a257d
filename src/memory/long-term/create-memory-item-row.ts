/** The `memory_items` rows a write stores, built the same way by the SQLite and PostgreSQL stores. */
import { estimateTokens } from '../../shared/estimate-tokens.js'
import type { AddMemoryInput, MemoryRecord } from '../types.js'
import type { KnowledgeChunk } from './chunk-knowledge-text.js'
import { knowledgeScope, type MemoryItemRow } from './memory-item-row.js'

type NewItemRow = Omit<MemoryItemRow, 'seq'>

export interface CreateMemoryItemRowOptions {
  id: string
  input: AddMemoryInput
  /** The write's time; the memory's time when the input gives none. */
  at: number
  /** The indexed text of the memory's neighbours. */
  context: string
}

/** The row of a new memory. */
export function createMemoryItemRow({ id, input, at, context }: CreateMemoryItemRowOptions): NewItemRow {
  return {
    id,
    kind: 'memory',
    scope: input.scope,
    text: input.text,
    speaker: input.speaker ?? null,
    time: input.time ?? at,
    metadata: input.metadata === undefined ? null : JSON.stringify(input.metadata),
    source_turn: input.sourceTurn ?? null,
    document_id: null,
    context,
    token_count: estimateTokens(input.text),
  }
}

export interface CreateKnowledgeChunkRowOptions {
  documentId: string
  documentName: string
  chunk: KnowledgeChunk
  index: number
  at: number
}

/** The row of one chunk of a knowledge document; its headings are its context. */
export function createKnowledgeChunkRow({
  documentId,
  documentName,
  chunk,
  index,
  at,
}: CreateKnowledgeChunkRowOptions): NewItemRow {
  return {
    id: `${documentId}#${index}`,
    kind: 'knowledge',
    scope: knowledgeScope,
    text: chunk.text,
    speaker: null,
    time: at,
    metadata: JSON.stringify({ document: documentId, chunk: index, headings: chunk.headings }),
    source_turn: null,
    document_id: documentId,
    context: [documentName, ...chunk.headings].join(' > '),
    token_count: estimateTokens(chunk.text),
  }
}

/** A stored memory with a patch applied; fields the patch leaves out keep their value. */
export function applyMemoryPatch<Row extends NewItemRow>(
  row: Row,
  patch: Partial<Pick<MemoryRecord, 'text' | 'speaker' | 'time' | 'metadata'>>,
): Row {
  const text = patch.text ?? row.text
  return {
    ...row,
    text,
    speaker: patch.speaker === undefined ? row.speaker : patch.speaker,
    time: patch.time ?? row.time,
    metadata: patch.metadata === undefined ? row.metadata : JSON.stringify(patch.metadata),
    token_count: estimateTokens(text),
  }
}
