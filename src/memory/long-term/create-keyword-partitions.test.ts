import { describe, expect, it } from 'vitest'
import { createKeywordPartitions } from './create-keyword-partitions.js'
import { type IndexedFields, MemoryTermIndex } from './memory-term-index.js'

/** A memory of its own words, as each new turn of a session writes one. */
function createFields(document: number): IndexedFields {
  return {
    speaker: [],
    body: Array.from({ length: 14 }, (_, word) => `word${document}x${word}`),
    context: [],
  }
}

/** A partition loaded with `documents` memories at once, as a search of a known scope loads it. */
function loadPartition(documents: number): MemoryTermIndex {
  const partition = new MemoryTermIndex('memory')
  for (let document = 0; document < documents; document++) partition.put(document, 0, createFields(document))
  return partition
}

describe('createKeywordPartitions', () => {
  it('counts a partition grown by writes as what it holds, as if it had been loaded whole', () => {
    const loadedWhole = loadPartition(20).measureBytes()
    const dropped: string[] = []
    const partitions = createKeywordPartitions({
      maxBytes: Math.floor(loadedWhole * 1.5),
      onDrop: (key) => dropped.push(key),
    })
    // A new session: its partition is loaded empty, then every memory arrives as a write.
    partitions.use('memory:new', () => new MemoryTermIndex('memory'))
    for (let document = 0; document < 20; document++) {
      partitions.apply(
        'memory:new',
        { seq: document, kind: 'memory', scope: 'new', time: 0 },
        createFields(document),
        true,
      )
    }
    partitions.use('memory:other', () => loadPartition(20))
    partitions.trim(new Set(['memory:other']))
    expect(dropped).toEqual(['memory:new'])
    expect(partitions.measureSize().partitions).toBe(1)
  })

  it('tells of partitions dropped to stay within the budget, not of those replaced or forgotten', () => {
    const dropped: string[] = []
    const partitions = createKeywordPartitions({ maxBytes: 1, onDrop: (key) => dropped.push(key) })
    partitions.use('memory:a', () => loadPartition(1))
    partitions.replace('memory:a', loadPartition(2))
    partitions.use('memory:b', () => loadPartition(1))
    partitions.forget('memory:b')
    partitions.use('memory:c', () => loadPartition(1))
    partitions.trim(new Set(['memory:c']))
    expect(dropped).toEqual(['memory:a'])
  })
})
