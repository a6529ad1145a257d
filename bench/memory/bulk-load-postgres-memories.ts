/**
 * Writes memories of one scope straight into the PostgreSQL memory tables, as the store's `add`
 * would write them one by one (the same neighbour context, index terms and token counts, built with
 * the store's own helpers), in a few multi-row statements. Only for the bench: one transaction per
 * memory runs at about 120 a second on a shared machine, which would make 100,000 take a quarter of
 * an hour. The memories added after them through the store chain on as usual.
 */
import pg from 'pg'
import { quoteIdentifier } from '../../src/memory/history/postgres-migrations.js'
import { capContext, joinContext } from '../../src/memory/long-term/neighbour-context.js'
import { segmentIndexedFields } from '../../src/memory/long-term/segment-indexed-fields.js'
import { estimateTokens } from '../../src/shared/estimate-tokens.js'

export interface BulkLoadPostgresMemoriesOptions {
  url: string
  /** A schema the store has already migrated. */
  schema: string
  scope: string
  memories: { text: string; speaker: string }[]
  /** Milliseconds since the epoch, for every memory. */
  time: number
}

export async function bulkLoadPostgresMemories(options: BulkLoadPostgresMemoriesOptions): Promise<void> {
  const { memories, scope, time } = options
  const tables = quoteIdentifier(options.schema)
  const client = new pg.Client({ connectionString: options.url })
  await client.connect()
  try {
    const batch = 2_000
    for (let start = 0; start < memories.length; start += batch) {
      const rows = memories.slice(start, start + batch).map((memory, offset) => {
        const index = start + offset
        const previous = memories[index - 1]?.text ?? ''
        const next = memories[index + 1]?.text
        const context = next === undefined ? capContext(previous) : joinContext(capContext(previous), next)
        const fields = segmentIndexedFields({ speaker: memory.speaker, text: memory.text, context })
        return { ...memory, id: `mem_bulk_${index}`, context, fields }
      })
      await client.query(
        `INSERT INTO ${tables}.memory_items (id, kind, scope, text, speaker, time, context, token_count,
           speaker_terms, body_terms, context_terms, created_at, updated_at)
         SELECT row.id, 'memory', $1, row.text, row.speaker, $2, row.context, row.tokens,
           row.speaker_terms, row.body_terms, row.context_terms, $2, $2
         FROM unnest($3::text[], $4::text[], $5::text[], $6::text[], $7::int[], $8::text[], $9::text[], $10::text[])
           WITH ORDINALITY AS row (id, text, speaker, context, tokens, speaker_terms, body_terms, context_terms, position)
         ORDER BY row.position`,
        [
          scope,
          time,
          rows.map((row) => row.id),
          rows.map((row) => row.text),
          rows.map((row) => row.speaker),
          rows.map((row) => row.context),
          rows.map((row) => estimateTokens(row.text)),
          rows.map((row) => row.fields.speaker.join(' ')),
          rows.map((row) => row.fields.body.join(' ')),
          rows.map((row) => row.fields.context.join(' ')),
        ],
      )
    }
    await client.query(
      `INSERT INTO ${tables}.memory_partitions (kind, scope, version) VALUES ('memory', $1, 1)
       ON CONFLICT (kind, scope) DO UPDATE SET version = memory_partitions.version + 1`,
      [scope],
    )
  } finally {
    await client.end()
  }
}
