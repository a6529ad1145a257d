/**
 * Stored responses (`store` not false): kept with `Charpipe.records.keep` in the history store, so a
 * later `previous_response_id` or `GET /v1/responses/:id` finds them after a restart too. A record
 * belongs to its owner (read-response-owner.ts): another caller's request reads it as absent, the
 * same as an id never stored. Records are written once; a deleted response leaves a tombstone
 * record (kind `responses_deleted`) that every read meets first.
 *
 * A record holds only what its request added: its input items, and its output in the resource. The
 * conversation a chain of responses ends is read by following `previous_response_id` back, so a chain
 * of N responses stores each input once, not the whole conversation again with every response.
 */
import type { Context } from 'hono'
import type { ServerDependencies } from '../server-dependencies.js'
import type { ResponseResource } from './create-response-resource.js'
import { convertOutputToInputItems } from './read-response-input.js'
import { readResponseOwner } from './read-response-owner.js'
import type { ResponseInputItem } from './response-request-schema.js'

const recordKind = 'responses'
const deletedKind = 'responses_deleted'

export interface ResponseRecord {
  /** Who made it (read-response-owner.ts); null in records kept before owners were told apart. */
  owner: string | null
  resource: ResponseResource
  /** This request's input items; the earlier ones are in the record of `previous_response_id`. */
  input?: ResponseInputItem[]
  /** Records kept before chains were linked: the whole conversation, earlier responses included. */
  conversation?: ResponseInputItem[]
}

export async function keepResponseRecord(
  dependencies: ServerDependencies,
  context: Context,
  record: { resource: ResponseResource; input: ResponseInputItem[] },
): Promise<void> {
  const value: ResponseRecord = { owner: readResponseOwner(context, dependencies), ...record }
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
  const { records } = dependencies.charpipe
  const stored = await records.read({ kind: recordKind, id })
  if (stored === undefined) return undefined
  const record = JSON.parse(stored) as ResponseRecord
  // A record of no known owner (kept before owners were told apart) is the admin's alone.
  const owner = readResponseOwner(context, dependencies)
  if (record.owner !== owner && !(record.owner === null && owner === 'admin')) return undefined
  if ((await records.read({ kind: deletedKind, id })) !== undefined) return undefined
  return record
}

/** Deletes the response of this id for its owner; false when this caller has none of that id. */
export async function deleteResponseRecord(
  dependencies: ServerDependencies,
  context: Context,
  id: string,
): Promise<boolean> {
  if (!(await readResponseRecord(dependencies, context, id))) return false
  await dependencies.charpipe.records.keep({ kind: deletedKind, id, value: '{}' })
  return true
}

/**
 * The conversation a stored response ends, oldest first: the input and output items of every
 * response of its chain. Undefined when the response, or one before it, is not there for this client.
 */
export async function readResponseConversation(
  dependencies: ServerDependencies,
  context: Context,
  id: string,
): Promise<ResponseInputItem[] | undefined> {
  const newestFirst: ResponseInputItem[][] = []
  const visited = new Set<string>()
  for (let next: string | null = id; next !== null && !visited.has(next); ) {
    visited.add(next)
    const record = await readResponseRecord(dependencies, context, next)
    if (!record) return undefined
    if (record.conversation) {
      newestFirst.push(record.conversation)
      break
    }
    newestFirst.push([...(record.input ?? []), ...convertOutputToInputItems(record.resource.output)])
    next = record.resource.previous_response_id
  }
  return newestFirst.reverse().flat()
}

/** `GET /v1/responses/:id/input_items`: the input items the response's own request carried. */
export function listInputItems(record: ResponseRecord) {
  const data = record.input ?? record.conversation ?? []
  return { object: 'list' as const, data, first_id: null, last_id: null, has_more: false }
}
