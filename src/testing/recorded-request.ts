/**
 * One request as the mock model server saw it, kept for assertions: what was sent, and whether the
 * client hung up before the reply was complete (an abort must close the connection at once).
 */
import type { IncomingMessage, ServerResponse } from 'node:http'

export interface RecordedRequest {
  method: string
  /** Path with query string, e.g. `/v1/chat/completions`. */
  path: string
  /** Header names in lower case; repeated headers joined with `, `. */
  headers: Record<string, string>
  /** The parsed JSON body, or `undefined` when it was empty or not JSON. */
  body: unknown
  rawBody: string
  /** Set once the connection closed before the reply was fully written. */
  closedEarly: boolean
  /** Events of a streamed reply written so far (for tests that act while a reply streams). */
  sentEvents: number
  /** Resolves when the exchange is over (reply finished or connection closed). */
  readonly closed: Promise<void>
}

/** Events rather than `for await`: the stream's async iterator costs more than the rest of a read. */
function readBody(incoming: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk))
    incoming.once('end', () => resolve(Buffer.concat(chunks).toString('utf8')))
    incoming.once('error', reject)
  })
}

export async function createRecordedRequest(
  incoming: IncomingMessage,
  response: ServerResponse,
): Promise<RecordedRequest> {
  const headers: Record<string, string> = {}
  for (const [name, value] of Object.entries(incoming.headers)) {
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value
  }
  let markClosed: () => void = () => {}
  const closed = new Promise<void>((resolve) => {
    markClosed = resolve
  })
  const record: RecordedRequest = {
    method: incoming.method ?? 'GET',
    path: incoming.url ?? '/',
    headers,
    body: undefined,
    rawBody: '',
    closedEarly: false,
    sentEvents: 0,
    closed,
  }
  response.once('close', () => {
    if (!response.writableFinished) record.closedEarly = true
    markClosed()
  })
  record.rawBody = await readBody(incoming)
  if (record.rawBody) {
    try {
      record.body = JSON.parse(record.rawBody)
    } catch {
      record.body = undefined
    }
  }
  return record
}
