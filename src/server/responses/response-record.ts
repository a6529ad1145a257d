/**
 * Stored responses (`store` not false): kept with `Charpipe.keepRecord` in the history store, so a
 * later `previous_response_id` or `GET /v1/responses/:id` finds them after a restart too. A record
 * belongs to the client that made it: another client's request reads it as absent.
 *
 * A record holds only what its request added: its input items, and its output in the resource. The
 * conversation a chain of responses ends is read by following `previous_response_id` back, so a chain
 * of N responses stores each input once, not the whole conversation again with every response.
 */
import type { Context } from 'hono'
import { requestClientKey } from '../require-access.js'
import type { ServerDependencies } from '../server-dependencies.js'
import type { ResponseResource } from './create-response-resource.js'
import { convertOutputToInputItems } from './read-response-input.js'
import type { ResponseInputItem } from './response-request-schema.js'

const recordKind = 'responses'

export interface ResponseRecord {
  /** The client key of the request that made it; null for a request without one. */
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
  const value: ResponseRecord = { owner: requestClientKey(context) ?? null, ...record }
  await dependencies.charpipe.keepRecord(recordKind, record.resource.id, JSON.stringify(value))
}

/** The stored response of this id that the request's client may read; undefined otherwise. */
export async function readResponseRecord(
  dependencies: ServerDependencies,
  context: Context,
  id: string,
): Promise<ResponseRecord | undefined> {
  const stored = await dependencies.charpipe.readRecord(recordKind, id)
  if (stored === undefined) return undefined
  const record = JSON.parse(stored) as ResponseRecord
  const admin = context.get('adminTokenUsed') === true
  if (!admin && record.owner !== (requestClientKey(context) ?? null)) return undefined
  return record
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
