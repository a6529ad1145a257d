/**
 * Every memory a listing finds, page by page: the stores answer at most one page per call, and a
 * person's memories, or a character's people, may be more than that.
 */
import type { ListMemoriesOptions, MemoryRecord, MemoryStore } from '../types.js'

const pageSize = 500

export async function listAllMemories(
  store: Pick<MemoryStore, 'list'>,
  options: Omit<ListMemoriesOptions, 'limit' | 'offset'>,
): Promise<MemoryRecord[]> {
  const all: MemoryRecord[] = []
  for (let offset = 0; ; offset += pageSize) {
    const page = await store.list({ ...options, limit: pageSize, offset })
    all.push(...page)
    if (page.length < pageSize) return all
  }
}
