import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type Database from 'better-sqlite3'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { openSqliteDatabase } from '../open-sqlite-database.js'
import type { MemoryStore } from '../types.js'
import { createSqliteKeywordIndex } from './create-sqlite-keyword-index.js'
import { createSqliteMemoryStore } from './create-sqlite-memory-store.js'
import { defaultMemoryRanking } from './memory-ranking.js'
import type { MemoryTermIndex } from './memory-term-index.js'
import { rankKeywordMatches } from './rank-keyword-matches.js'
import { segmentText } from './segment-text.js'

let folder: string
let path: string
const stores: MemoryStore[] = []
const databases: Database.Database[] = []

function openStore(): MemoryStore {
  // A fixed clock, so time decay gives equal scores in two stores.
  const store = createSqliteMemoryStore({ path, now: () => Date.UTC(2025, 5, 1) })
  stores.push(store)
  return store
}

function openDatabase(): Database.Database {
  const database = openSqliteDatabase(path)
  databases.push(database)
  return database
}

beforeEach(() => {
  folder = mkdtempSync(join(tmpdir(), 'keyword-index-'))
  path = join(folder, 'charpipe.db')
})

afterEach(async () => {
  for (const store of stores.splice(0)) await store.close()
  for (const database of databases.splice(0)) database.close()
  rmSync(folder, { recursive: true, force: true })
})

const lines = [
  'I adopted a grey cat named Pixel from the shelter last spring',
  'Pixel knocked my coffee off the desk again this morning',
  'We went hiking near the lake and saw two herons',
  'My sister is training for a marathon in October',
  'The marathon route goes past the lake and the old mill',
  '我周末和朋友去北京吃火锅',
  '北京的冬天很冷，但是火锅很好吃',
  'Coffee with my sister at the new café downtown',
  'The shelter asked for volunteers to walk the dogs on weekends',
  'I finished reading a novel about a lighthouse keeper',
  'ok',
  'The lighthouse keeper novel had a twist about the herons',
]

/** Every term the lines and speakers segment into, in a stable order. */
function collectVocabulary(): string[] {
  return [...new Set([...lines, 'Caroline Melanie Ann Bo'].flatMap((line) => segmentText(line)))].sort()
}

/** Seq → score of every document an index partition set ranks for the terms. */
function scoreByIndex(partitions: MemoryTermIndex[], terms: string[]): Map<number, number> {
  const result = rankKeywordMatches({
    partitions,
    terms,
    limit: 1_000,
    speakerWeight: defaultMemoryRanking.speakerWeight,
    contextWeight: defaultMemoryRanking.contextWeight,
  })
  return new Map(result.matches.map((match) => [match.seq, match.relevance]))
}

interface StoredDocument {
  seq: number
  speaker: string[]
  body: string[]
  context: string[]
}

function readStoredDocuments(database: Database.Database): StoredDocument[] {
  const split = (column: string | null) => (column ? column.split(' ') : [])
  const rows = database.prepare('SELECT seq, speaker, body, context FROM memory_terms').all() as {
    seq: number
    speaker: string | null
    body: string | null
    context: string | null
  }[]
  return rows.map((row) => ({
    seq: row.seq,
    speaker: split(row.speaker),
    body: split(row.body),
    context: split(row.context),
  }))
}

/**
 * The stored terms in an FTS5 table of their own (in memory, as the store kept them before it held
 * them in a plain table): what its MATCH finds is what the keyword index must find.
 */
function openFtsReference(documents: StoredDocument[]): Database.Database {
  const reference = openSqliteDatabase(':memory:')
  databases.push(reference)
  reference.exec(
    "CREATE VIRTUAL TABLE reference_fts USING fts5 (speaker, body, context, tokenize = 'unicode61 remove_diacritics 2')",
  )
  const insert = reference.prepare(
    'INSERT INTO reference_fts (rowid, speaker, body, context) VALUES (?, ?, ?, ?)',
  )
  for (const document of documents)
    insert.run(document.seq, document.speaker.join(' '), document.body.join(' '), document.context.join(' '))
  return reference
}

/** BM25 written out from its definition (k1 = 1.2, b = 0.75, positive IDF, column weights). */
function scoreByReference(documents: StoredDocument[], terms: string[]): Map<number, number> {
  const { speakerWeight, contextWeight } = defaultMemoryRanking
  const count = documents.length
  const length = (document: StoredDocument) =>
    1 + document.speaker.length + document.body.length + document.context.length
  const average = documents.reduce((sum, document) => sum + length(document), 0) / count
  const occurrences = (list: string[], term: string) => list.filter((each) => each === term).length
  const scores = new Map<number, number>()
  for (const term of terms) {
    const holders = documents.filter((document) =>
      [document.speaker, document.body, document.context].some((list) => list.includes(term)),
    )
    const idf = Math.log(1 + (count - holders.length + 0.5) / (holders.length + 0.5))
    for (const document of holders) {
      const frequency =
        speakerWeight * occurrences(document.speaker, term) +
        occurrences(document.body, term) +
        contextWeight * occurrences(document.context, term)
      const saturation = frequency / (frequency + 1.2 * (0.25 + (0.75 * length(document)) / average))
      scores.set(document.seq, (scores.get(document.seq) ?? 0) + idf * 2.2 * saturation)
    }
  }
  return scores
}

describe('keyword index', () => {
  it('finds the documents FTS5 MATCH finds and scores them by BM25 over the stored columns', async () => {
    const store = openStore()
    for (const [index, text] of lines.entries()) {
      await store.add({ scope: 'a', text, speaker: index % 2 ? 'Caroline' : 'Melanie' })
    }
    const database = openDatabase()
    const index = createSqliteKeywordIndex(database)
    const partitions = index.findPartitions('a')
    const documents = readStoredDocuments(database)
    const fts = openFtsReference(documents)
      .prepare('SELECT rowid FROM reference_fts WHERE reference_fts MATCH ?')
      .pluck()
    const queries = [
      ...collectVocabulary().map((term) => [term]),
      segmentText('did Caroline adopt a cat from the shelter?'),
      segmentText('marathon by the lake'),
      segmentText('北京火锅'),
      segmentText('lighthouse novel herons coffee sister'),
    ]
    expect(queries.length).toBeGreaterThan(50)
    for (const terms of queries) {
      const distinct = [...new Set(terms)]
      const found = fts.all(terms.map((term) => `"${term}"`).join(' OR ')) as number[]
      const actual = scoreByIndex(partitions, distinct)
      expect([...actual.keys()].sort((left, right) => left - right)).toEqual(
        [...found].sort((left, right) => left - right),
      )
      const expected = scoreByReference(documents, distinct)
      for (const seq of found) expect(actual.get(seq)).toBeCloseTo(expected.get(seq) as number, 9)
    }
  })

  it('keeps the index unchanged when a write transaction fails', async () => {
    const store = openStore()
    await store.add({ scope: 'a', text: 'the violin lesson is on Tuesday' })
    expect(await store.search('violin', { scope: 'a', k: 5 })).toHaveLength(1)
    const database = openDatabase()
    database.exec(
      `CREATE TRIGGER refuse_cello BEFORE INSERT ON memory_items WHEN NEW.text LIKE '%cello%'
       BEGIN SELECT RAISE(ABORT, 'no cellos'); END`,
    )
    await expect(store.add({ scope: 'a', text: 'the cello and violin duet' })).rejects.toThrow(/no cellos/)
    const hits = await store.search('violin', { scope: 'a', k: 5 })
    expect(hits.map((hit) => hit.text)).toEqual(['the violin lesson is on Tuesday'])
    // The failed add did not leave the previous memory indexed with the rejected neighbour.
    expect(await store.search('cello', { scope: 'a', k: 5 })).toEqual([])
  })
})

describe('keyword index eviction', () => {
  it('keeps its loaded scopes under maxBytes, dropping the least recently searched, and rebuilds them on demand', async () => {
    const store = openStore()
    for (let scope = 0; scope < 6; scope++) {
      for (const line of lines) await store.add({ scope: `user-${scope}`, text: line })
    }
    const database = openDatabase()
    const unbounded = createSqliteKeywordIndex(database)
    unbounded.findPartitions('user-0')
    const oneScope = unbounded.measureSize().bytes
    // Room for about two scopes besides the knowledge partition.
    const index = createSqliteKeywordIndex(database, { maxBytes: Math.ceil(oneScope * 2.5) })
    for (let scope = 0; scope < 6; scope++) index.findPartitions(`user-${scope}`)
    const size = index.measureSize()
    expect(size.bytes).toBeLessThanOrEqual(Math.ceil(oneScope * 2.5))
    expect(size.partitions).toBeLessThan(7)
    // The scope searched last is kept; the first was dropped and is rebuilt, whole, when searched.
    const [last] = index.findPartitions('user-5')
    const [again] = index.findPartitions('user-0')
    expect(last?.documentCount).toBe(lines.length)
    expect(again?.documentCount).toBe(lines.length)
    expect(index.measureSize().bytes).toBeLessThanOrEqual(Math.ceil(oneScope * 2.5))
  })
})
