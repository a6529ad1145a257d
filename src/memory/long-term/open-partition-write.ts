/**
 * One write to a keyword-index partition in PostgreSQL (a scope's memories, or the knowledge
 * chunks), inside the caller's transaction. Opening it bumps the partition's version, which takes
 * the partition row's lock until the transaction ends: writers of one partition run one after the
 * other, so its versions commit in order and a reader that sees version n has seen every version
 * below it. Finishing it logs what the write did to the index under that version, for every
 * server's in-process index to apply (`createPostgresKeywordIndex`).
 */
import type { PoolClient } from 'pg'
import type { IndexedRow, StoredTermColumns } from './create-keyword-partitions.js'

export interface PartitionWrite {
  version: number
  /** The row is now indexed with these terms. */
  put(row: Pick<IndexedRow, 'seq' | 'time'>, terms: StoredTermColumns): void
  /** The row is no longer indexed; `terms` are those it was indexed with. */
  remove(row: Pick<IndexedRow, 'seq' | 'time'>, terms: StoredTermColumns): void
  /** Every row of the partition is gone. */
  clear(): void
  /** Writes the log entries (and now and then drops the oldest); call last in the transaction. */
  finish(): Promise<void>
}

export interface OpenPartitionWriteOptions {
  /** The quoted schema name. */
  tables: string
  kind: IndexedRow['kind']
  scope: string
}

/** Versions of a partition whose log entries are kept; a reader further behind reloads it. */
const indexLogVersionsKept = 1024

interface LogEntry {
  op: 'put' | 'remove' | 'clear' | 'none'
  seq: number | null
  time: number | null
  terms: StoredTermColumns | null
}

export async function openPartitionWrite(
  client: PoolClient,
  options: OpenPartitionWriteOptions,
): Promise<PartitionWrite> {
  const { tables, kind, scope } = options
  const bumped = await client.query<{ version: string }>(
    `INSERT INTO ${tables}.memory_partitions (kind, scope, version) VALUES ($1, $2, 1)
     ON CONFLICT (kind, scope) DO UPDATE SET version = memory_partitions.version + 1
     RETURNING version`,
    [kind, scope],
  )
  const version = Number(bumped.rows[0]!.version)
  const entries: LogEntry[] = []
  return {
    version,
    put: (row, terms) => entries.push({ op: 'put', seq: row.seq, time: row.time, terms }),
    remove: (row, terms) => entries.push({ op: 'remove', seq: row.seq, time: row.time, terms }),
    clear: () => entries.push({ op: 'clear', seq: null, time: null, terms: null }),
    async finish() {
      // A version with no entry would read as a gap, and make every reader reload the partition.
      if (entries.length === 0) entries.push({ op: 'none', seq: null, time: null, terms: null })
      await client.query(
        `INSERT INTO ${tables}.memory_index_log
           (kind, scope, version, position, op, seq, time, speaker_terms, body_terms, context_terms)
         SELECT $1, $2, $3, entry.position - 1, entry.op, entry.seq, entry.time, entry.speaker, entry.body, entry.context
         FROM unnest($4::text[], $5::bigint[], $6::float8[], $7::text[], $8::text[], $9::text[])
           WITH ORDINALITY AS entry (op, seq, time, speaker, body, context, position)`,
        [
          kind,
          scope,
          version,
          entries.map((entry) => entry.op),
          entries.map((entry) => entry.seq),
          entries.map((entry) => entry.time),
          entries.map((entry) => entry.terms?.speaker ?? null),
          entries.map((entry) => entry.terms?.body ?? null),
          entries.map((entry) => entry.terms?.context ?? null),
        ],
      )
      if (version % 64 === 0) {
        await client.query(
          `DELETE FROM ${tables}.memory_index_log WHERE kind = $1 AND scope = $2 AND version <= $3`,
          [kind, scope, version - indexLogVersionsKept],
        )
      }
    },
  }
}
