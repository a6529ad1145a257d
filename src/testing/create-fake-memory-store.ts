/**
 * An in-memory `MemoryStore` for the server's tests (the fake `Charpipe`'s default memory): real
 * add/search/update/delete/history over a list, with a plain word-overlap score, so the memory
 * endpoints can be driven end to end. Not exported from `charpipe/testing`, like the fake it serves.
 */
import { randomUUID } from 'node:crypto'
import type {
  AddMemoryInput,
  KnowledgeDocument,
  ListMemoriesOptions,
  MemoryChange,
  MemoryHit,
  MemoryRecord,
  MemorySearchOptions,
  MemoryStore,
} from '../memory/types.js'

function splitWords(text: string): string[] {
  return text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []
}

function scoreText(query: string, text: string): number {
  const words = new Set(splitWords(text))
  const queryWords = splitWords(query)
  if (queryWords.length === 0) return 0
  return queryWords.filter((word) => words.has(word)).length / queryWords.length
}

export function createFakeMemoryStore(): MemoryStore & { closed: boolean } {
  const records = new Map<string, MemoryRecord>()
  const changes: MemoryChange[] = []
  const documents = new Map<string, KnowledgeDocument & { chunkTexts: string[] }>()
  const record = (memoryId: string, event: MemoryChange['event'], oldText?: string, newText?: string) =>
    changes.push({ id: randomUUID(), memoryId, event, oldText, newText, time: Date.now() })

  const store = {
    closed: false,
    async add(input: AddMemoryInput) {
      const memory: MemoryRecord = {
        id: randomUUID(),
        scope: input.scope,
        text: input.text,
        speaker: input.speaker,
        time: input.time ?? Date.now(),
        metadata: input.metadata,
        ...(input.sourceTurn !== undefined ? { sourceTurn: input.sourceTurn } : {}),
      }
      records.set(memory.id, memory)
      record(memory.id, 'add', undefined, memory.text)
      return memory
    },
    async get(id: string) {
      return records.get(id)
    },
    async list(options: ListMemoriesOptions) {
      const all = [...records.values()].filter(
        (memory) =>
          (!options.scope || memory.scope === options.scope) &&
          (options.scopePrefix === undefined || memory.scope.startsWith(options.scopePrefix)) &&
          (options.sourceTurn === undefined || memory.sourceTurn === options.sourceTurn),
      )
      const offset = options.offset ?? 0
      return all.slice(offset, offset + (options.limit ?? all.length))
    },
    async update(id: string, patch: Partial<Pick<MemoryRecord, 'text' | 'speaker' | 'time' | 'metadata'>>) {
      const memory = records.get(id)
      if (!memory) return undefined
      const updated = { ...memory, ...patch }
      records.set(id, updated)
      record(id, 'update', memory.text, updated.text)
      return updated
    },
    async delete(id: string) {
      const memory = records.get(id)
      if (!memory) return false
      records.delete(id)
      record(id, 'delete', memory.text)
      return true
    },
    async deleteAll(scope: string) {
      let count = 0
      for (const memory of [...records.values()])
        if (memory.scope === scope && (await store.delete(memory.id))) count++
      return count
    },
    async history(id: string) {
      return changes.filter((change) => change.memoryId === id)
    },
    async search(query: string, options: MemorySearchOptions): Promise<MemoryHit[]> {
      const memories: MemoryHit[] = [...records.values()]
        .filter((memory) => memory.scope === options.scope)
        .map((memory) => ({ ...memory, score: scoreText(query, memory.text), kind: 'memory' as const }))
      const knowledge: MemoryHit[] = [...documents.values()].flatMap((document) =>
        document.chunkTexts.map((text, index) => ({
          id: `${document.id}:${index}`,
          scope: '',
          text,
          time: document.createdAt,
          score: scoreText(query, text),
          kind: 'knowledge' as const,
          sourceName: document.name,
        })),
      )
      return [...memories, ...knowledge]
        .filter((hit) => hit.score > 0)
        .sort((left, right) => right.score - left.score)
        .slice(0, options.k)
    },
    async addKnowledge(input: { name: string; text: string }) {
      const chunkTexts = input.text.split(/\n{2,}/).filter((chunk) => chunk.trim() !== '')
      const document = {
        id: randomUUID(),
        name: input.name,
        chunks: chunkTexts.length,
        createdAt: Date.now(),
        chunkTexts,
      }
      documents.set(document.id, document)
      const { chunkTexts: _texts, ...summary } = document
      return summary
    },
    async listKnowledge() {
      return [...documents.values()].map(({ chunkTexts: _texts, ...summary }) => summary)
    },
    async removeKnowledge(id: string) {
      return documents.delete(id)
    },
    async close() {
      store.closed = true
    },
  }
  return store
}
