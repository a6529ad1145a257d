/**
 * For tests and benches that need the local PostgreSQL (`POSTGRES_URL`): a schema name of their own
 * per run, and the dropping of every schema under that prefix. Under CI the tests never skip: a
 * missing PostgreSQL fails them.
 */
import { randomBytes } from 'node:crypto'
import pg from 'pg'

export const testPostgresUrl = process.env.POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test'

/** A schema name no other run uses (lower case, so it needs no quoting in psql either). */
export function createTestSchemaName(purpose = 'test'): string {
  return `charpipe_${purpose}_${randomBytes(6).toString('hex')}`
}

/** Why the tests cannot run here (no PostgreSQL), or undefined; always undefined under CI. */
export async function findPostgresSkipReason(): Promise<string | undefined> {
  if (process.env.CI === 'true') return undefined
  const client = new pg.Client({ connectionString: testPostgresUrl, connectionTimeoutMillis: 1000 })
  try {
    await client.connect()
    await client.query('SELECT 1')
    return undefined
  } catch (error) {
    return `PostgreSQL not reachable at ${testPostgresUrl} (${(error as Error).message})`
  } finally {
    await client.end().catch(() => {})
  }
}

/** Drops every schema whose name starts with `prefix` (a run's schemas). */
export async function dropSchemasUnder(prefix: string): Promise<void> {
  const client = new pg.Client({ connectionString: testPostgresUrl })
  await client.connect()
  try {
    const found = await client.query<{ name: string }>(
      'SELECT nspname AS name FROM pg_namespace WHERE starts_with(nspname, $1)',
      [prefix],
    )
    for (const { name } of found.rows) await client.query(`DROP SCHEMA "${name.replace(/"/g, '""')}" CASCADE`)
  } finally {
    await client.end()
  }
}

/** Creates a database of the run's own (for servers that keep their tables in `public`); its URL. */
export async function createTestDatabase(name: string): Promise<string> {
  const client = new pg.Client({ connectionString: testPostgresUrl })
  await client.connect()
  try {
    await client.query(`CREATE DATABASE ${name}`)
  } finally {
    await client.end()
  }
  const url = new URL(testPostgresUrl)
  url.pathname = `/${name}`
  return url.href
}

/** Drops a database made by createTestDatabase, closing what is still connected to it. */
export async function dropTestDatabase(name: string): Promise<void> {
  const client = new pg.Client({ connectionString: testPostgresUrl })
  await client.connect()
  try {
    await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
  } finally {
    await client.end()
  }
}
