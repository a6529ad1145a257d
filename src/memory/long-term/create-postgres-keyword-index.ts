/**
 * The in-process keyword index of the PostgreSQL memory store: the same partitions, built from the
 * same stored terms, as the SQLite store's, so both rank alike. Several servers share the tables,
 * so each server's index must learn of the others' writes, and of its own, the same way:
 *
 * Every write bumps its partition's version (`openPartitionWrite`) and logs, under that version,
 * what it did to the index: a row put with its terms, a row removed with the terms it had, or the
 * partition cleared. Before a search, one query asks for the log entries of the searched scope and
 * of the knowledge chunks past the versions this index has seen; usually it returns nothing, or the
 * few writes since the last search, which are applied in place as deltas. A partition is reloaded
 * whole only when it is not loaded, when the entries it needs were pruned (a server that did not
 * search the scope for `indexLogVersionsKept` writes), or when there are too many to be worth it.
 *
 * Why a log polled before each search rather than LISTEN/NOTIFY: a notification is lost while a
 * server's listening connection is down, and then its index is stale with no one the wiser; the
 * log is read in the search's own round trip and carries its own gaps (a version missing means
 * reload), so a search always sees every write committed before it began. It costs one indexed
 * query per search, about what a NOTIFY listener would cost in wake-ups on a busy server.
 */

import type { Pool } from 'pg'
import type { Logger } from '../../shared/logger.js'
import { runPostgresTransaction } from '../run-postgres-transaction.js'
import {
  type CreateKeywordPartitionsOptions,
  convertStoredTerms,
  createKeywordPartitions,
  type IndexedRow,
  type KeywordIndex,
  knowledgePartitionKey,
} from './create-keyword-partitions.js'
import type { RowCache } from './create-row-cache.js'
import { MemoryTermIndex } from './memory-term-index.js'
import { namePostgresStatement } from './name-postgres-statement.js'

export interface CreatePostgresKeywordIndexOptions extends CreateKeywordPartitionsOptions {
  pool: Pool
  /** The quoted schema name. */
  tables: string
  logger: Logger
  /** Longest wait for loading one partition, in milliseconds (a big scope is many rows). @default 120000 */
  loadTimeoutMs?: number
  /** Rows cached by the store: told of every row a logged change touches. */
  rowCache?: RowCache
}

/** Past this many log entries for one partition, reloading it is cheaper than applying them. */
const maxLogEntries = 4096

interface Loaded {
  partition: MemoryTermIndex
  /** The partition version the partition reflects. */
  seen: number
}

interface Wanted {
  key: string
  kind: IndexedRow['kind']
  scope: string
}

type LogRow = {
  kind: IndexedRow['kind']
  version: string
  position: number
  op: 'put' | 'remove' | 'clear' | 'none'
  seq: string | null
  time: number | null
  speaker_terms: string | null
  body_terms: string | null
  context_terms: string | null
}

export function createPostgresKeywordIndex(options: CreatePostgresKeywordIndexOptions): KeywordIndex {
  const { pool, tables, logger } = options
  const loadTimeoutMs = options.loadTimeoutMs ?? 120_000
  const loaded = new Map<string, Loaded>()
  // A dropped partition's state goes with it: kept here, every scope ever searched would stay in
  // memory, past `maxBytes` (a long run of new sessions, each server of a cluster).
  const partitions = createKeywordPartitions({ ...options, onDrop: (key) => loaded.delete(key) })
  const loading = new Map<string, Promise<Loaded>>()
  const sql = {
    log: `SELECT kind, version, position, op, seq, time, speaker_terms, body_terms, context_terms
      FROM ((SELECT * FROM ${tables}.memory_index_log
              WHERE $2::bigint IS NOT NULL AND kind = 'memory' AND scope = $1 AND version > $2
              ORDER BY version, position LIMIT $4)
            UNION ALL
            (SELECT * FROM ${tables}.memory_index_log
              WHERE $3::bigint IS NOT NULL AND kind = 'knowledge' AND scope = '' AND version > $3
              ORDER BY version, position LIMIT $4)) AS entries`,
    version: `SELECT version FROM ${tables}.memory_partitions WHERE kind = $1 AND scope = $2`,
    rows: `SELECT seq, time, speaker_terms, body_terms, context_terms FROM ${tables}.memory_items
      WHERE kind = $1 AND scope = $2 ORDER BY seq`,
  }

  const logStatementName = namePostgresStatement('memory_log', sql.log)

  /** What is loaded for `key`, if the cache still holds it. */
  function findLoaded(key: string): Loaded | undefined {
    const state = loaded.get(key)
    if (state && partitions.peek(key) === state.partition) return state
    loaded.delete(key)
    return undefined
  }

  /** The partition's rows and version, read in one snapshot. */
  async function load(wanted: Wanted): Promise<Loaded> {
    // Whatever this index missed may have changed cached rows too.
    options.rowCache?.forgetAll()
    const snapshot = { begin: 'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY' }
    const { version, rows } = await runPostgresTransaction(pool, snapshot, async (client) => {
      const version = await client.query<{ version: string }>(sql.version, [wanted.kind, wanted.scope])
      const rows = await client.query<[string, number, string, string, string]>({
        text: sql.rows,
        values: [wanted.kind, wanted.scope],
        rowMode: 'array',
        query_timeout: loadTimeoutMs,
      } as never)
      return { version, rows }
    })
    const partition = new MemoryTermIndex(wanted.kind)
    for (const [seq, time, speaker, body, context] of rows.rows) {
      partition.put(Number(seq), time, convertStoredTerms({ speaker, body, context }))
    }
    return { partition, seen: Number(version.rows[0]?.version ?? 0) }
  }

  /**
   * Loads a partition, once however many searches wait for it; the load goes on when a search
   * gives up on its deadline, so the next search of a big scope finds it done.
   */
  function loadOnce(wanted: Wanted): Promise<Loaded> {
    let pending = loading.get(wanted.key)
    if (!pending) {
      pending = load(wanted).then(
        (state) => {
          loading.delete(wanted.key)
          loaded.set(wanted.key, state)
          partitions.replace(wanted.key, state.partition)
          return state
        },
        (error: unknown) => {
          loading.delete(wanted.key)
          throw error
        },
      )
      pending.catch(() => {})
      loading.set(wanted.key, pending)
    }
    return pending
  }

  /** Applies a partition's log entries past what it has seen; false when it must be reloaded. */
  function applyEntries(key: string, state: Loaded, entries: LogRow[]): boolean {
    if (entries.length > maxLogEntries) return false
    let applying = -1
    try {
      for (const entry of entries) {
        const version = Number(entry.version)
        if (version !== applying) {
          // Another search may have applied it already, from an answer that came back first.
          if (version <= state.seen) continue
          // Pruned entries: this index is too far behind to catch up.
          if (version !== state.seen + 1) return false
          applying = version
          state.seen = version
        }
        if (entry.op === 'clear') {
          options.rowCache?.forgetAll()
          state.partition = new MemoryTermIndex(state.partition.kind)
          partitions.replace(key, state.partition)
        } else if (entry.op === 'put' || entry.op === 'remove') {
          const row = { seq: Number(entry.seq), time: entry.time as number, kind: state.partition.kind }
          options.rowCache?.forget(row.seq)
          const fields = convertStoredTerms({
            speaker: entry.speaker_terms,
            body: entry.body_terms,
            context: entry.context_terms,
          })
          partitions.apply(key, { ...row, scope: '' }, fields, entry.op === 'put')
        }
      }
      return true
    } catch (error) {
      logger.warn({ err: error, partition: key }, 'memory index: a logged change did not apply; reloading')
      return false
    }
  }

  /** One query for the log entries of every loaded partition wanted; applies them. */
  async function catchUp(wanted: Wanted[]): Promise<void> {
    const states = wanted.map((each) => findLoaded(each.key))
    if (states.every((state) => state === undefined)) return
    const [memory, knowledge] = states
    const result = await pool.query<LogRow>({
      name: logStatementName,
      text: sql.log,
      values: [wanted[0]!.scope, memory?.seen ?? null, knowledge?.seen ?? null, maxLogEntries + 1],
    })
    const ordered = result.rows.sort(
      (left, right) => Number(left.version) - Number(right.version) || left.position - right.position,
    )
    wanted.forEach((each, index) => {
      const state = findLoaded(each.key)
      // A reload of this partition started meanwhile: its snapshot is newer than the entries.
      if (!state || state !== states[index]) return
      const entries = ordered.filter((row) => row.kind === each.kind)
      if (!applyEntries(each.key, state, entries)) {
        partitions.forget(each.key)
        loaded.delete(each.key)
      }
    })
    partitions.compact()
  }

  return {
    async findPartitions(scope) {
      const wanted: Wanted[] = [
        { key: `memory:${scope}`, kind: 'memory', scope },
        { key: knowledgePartitionKey, kind: 'knowledge', scope: '' },
      ]
      await catchUp(wanted)
      // What each partition is now, kept in case another search evicts it during the awaits below.
      const fresh = new Map<string, Loaded>()
      for (const each of wanted) {
        const state = findLoaded(each.key)
        if (state) fresh.set(each.key, state)
      }
      const missing = wanted.filter((each) => !fresh.has(each.key))
      if (missing.length) {
        // A load another search started may predate writes this search must see: catch up after it.
        const joined = missing.some((each) => loading.has(each.key))
        const states = await Promise.all(missing.map(loadOnce))
        for (const [index, each] of missing.entries()) fresh.set(each.key, states[index]!)
        if (joined) await catchUp(wanted)
      }
      const found = wanted.map((each) => {
        // Evicted or dropped since it loaded (another scope's search, a gap): put the load back.
        const state = findLoaded(each.key) ?? fresh.get(each.key)!
        loaded.set(each.key, state)
        return partitions.use(each.key, () => state.partition)
      })
      partitions.trim(new Set(wanted.map((each) => each.key)))
      return found
    },
    measureSize: () => partitions.measureSize(),
  }
}
