/**
 * Stored responses (`store` not false): kept with `Charpipe.records.keep` in the history store, so a
 * later `previous_response_id` or `GET /v1/responses/:id` finds them after a restart too. A record
 * belongs to the client that made it: another client's request reads it as absent.
 */
import type { Context } from 'hono'
import { requestClientKey } from '../require-access.js'
import type { ServerDependencies } from '../server-dependencies.js'
import type { ResponseResource } from './create-response-resource.js'
import type { ResponseInputItem } from './response-request-schema.js'

const recordKind = 'responses'

export interface ResponseRecord {
  /** The client key of the request that made it; null for a request without one. */
  owner: string | null
  resource: ResponseResource
  /** The whole conversation so far: earlier items, this request's input, this response's output. */
  conversation: ResponseInputItem[]
}

export async function keepResponseRecord(
  dependencies: ServerDependencies,
  context: Context,
  record: Omit<ResponseRecord, 'owner'>,
): Promise<void> {
  const value: ResponseRecord = { owner: requestClientKey(context) ?? null, ...record }
  await dependencies.charpipe.records.keep({
    kind: recordKind,
    id: record.resource.id,
    value: JSON.stringify(value),
  })
}

/** The stored response of this id that the request's client may read; undefined otherwise. */
export async function readResponseRecord(
  dependencies: ServerDependencies,
  context: Context,
  id: string,
): Promise<ResponseRecord | undefined> {
  const stored = await dependencies.charpipe.records.read({ kind: recordKind, id })
  if (stored === undefined) return undefined
  const record = JSON.parse(stored) as ResponseRecord
  const admin = context.get('adminTokenUsed') === true
  if (!admin && record.owner !== (requestClientKey(context) ?? null)) return undefined
  return record
}
