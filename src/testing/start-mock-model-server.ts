/**
 * A local OpenAI- and Anthropic-compatible model server for trying the pipeline without keys and for
 * tests (node:http, no framework). Routes: `POST /v1/chat/completions` (OpenAI), `POST /v1/messages`
 * (Anthropic), streamed (`stream: true`) or not, `POST /v1/embeddings` (deterministic hashed n-gram
 * vectors, `createMockEmbeddingsResult`) and `GET /v1/models`.
 *
 * Where a reply comes from, first match wins:
 * 1. the request itself: an `x-mock-reply` header holding a `MockReply` as JSON (or `base64:` + base64
 *    of the JSON), or a `[[mock-reply:{…json…}]]` marker in the last user message;
 * 2. the queue filled by `script(…)` or the `replies` of a script file, one reply per request;
 * 3. the script's `default` reply, then the `respond` option;
 * 4. the default character reply (`composeMockReply`), which says plainly it comes from a mock.
 * A `MockReply` sets the text, reasoning, tool calls, chunk size, delay between chunks, time to first
 * token, an HTTP status with body and `Retry-After`, a broken connection after N events, raw bytes
 * inserted anywhere (malformed lines, comments), or (from a script only, never from a request) a
 * recorded fixture file to replay.
 *
 * Every request is recorded (method, path, headers, body) with whether the client closed the
 * connection before the reply was complete, for assertions.
 *
 * @example
 * const server = await startMockModelServer()
 * server.script({ text: '你好！', chunkSize: 2, delayMs: 10 })
 * // point an OpenAI client at `${server.url}/v1`
 * await server.close()
 */
import { readFile } from 'node:fs/promises'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { parse as parseYaml } from 'yaml'
import { createMockEmbeddingsResult } from './create-mock-embeddings-result.js'
import { type MockReply, type MockScript, parseMockReply, parseMockScript } from './mock-reply.js'
import { createRecordedRequest, type RecordedRequest } from './recorded-request.js'
import { selectRequestedReply } from './select-mock-reply.js'
import { sendMockReply } from './send-mock-reply.js'

export type { RecordedRequest } from './recorded-request.js'

export interface StartMockModelServerOptions {
  /** @default 0 (a free port) */
  port?: number
  /** @default '127.0.0.1' */
  host?: string
  /** A script object, or the path of a YAML/JSON script file. */
  script?: MockScript | MockReply[] | string
  /** Picks a reply when nothing else did (e.g. the builtin mock provider's character reply). */
  respond?: (request: RecordedRequest) => MockReply | undefined
  /** Model id reported by `/v1/models` and in replies when the request names none. */
  model?: string
  /** Let the process exit while the server is listening (the in-process builtin mock). */
  unref?: boolean
}

export interface MockModelServer {
  /** `http://host:port` (append `/v1` for an OpenAI client's baseURL). */
  readonly url: string
  readonly port: number
  /** Every request received, in order. */
  readonly requests: RecordedRequest[]
  /** Queues replies, used one per model request in order. */
  script(replies: MockReply | MockReply[]): void
  /** Forgets queued replies and recorded requests (between tests). */
  reset(): void
  close(): Promise<void>
}

async function loadScriptFile(path: string): Promise<MockScript> {
  const text = await readFile(path, 'utf8')
  const value = path.endsWith('.json') ? JSON.parse(text) : parseYaml(text)
  return parseMockScript(value, `mock script ${path}`)
}

function sendJson(response: ServerResponse, status: number, value: unknown): void {
  const body = JSON.stringify(value)
  response.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(body),
  })
  response.end(body)
}

export async function startMockModelServer(
  options: StartMockModelServerOptions = {},
): Promise<MockModelServer> {
  const script =
    typeof options.script === 'string'
      ? await loadScriptFile(options.script)
      : parseMockScript(options.script ?? { replies: [] })
  const queue: MockReply[] = [...script.replies]
  const requests: RecordedRequest[] = []
  const model = options.model ?? 'mock-character'

  const handle = async (incoming: IncomingMessage, response: ServerResponse) => {
    const record = await createRecordedRequest(incoming, response)
    requests.push(record)
    const path = record.path.split('?')[0]!
    if (record.method === 'GET' && (path === '/v1/models' || path === '/models')) {
      return sendJson(response, 200, {
        object: 'list',
        data: [{ id: model, object: 'model', owned_by: 'charpipe' }],
      })
    }
    if (record.method === 'POST' && path.endsWith('/embeddings')) {
      const result = createMockEmbeddingsResult({ body: record.body, model })
      return sendJson(response, result.status, result.value)
    }
    const api = path.endsWith('/chat/completions')
      ? 'openai'
      : path.endsWith('/messages')
        ? 'anthropic'
        : undefined
    if (record.method !== 'POST' || !api) {
      return sendJson(response, 404, {
        error: { message: `no route for ${record.method} ${path}`, type: 'not_found' },
      })
    }
    if (record.body === undefined) {
      return sendJson(response, 400, {
        error: { message: 'request body is not JSON', type: 'invalid_request_error' },
      })
    }
    let reply: MockReply | undefined
    try {
      reply = selectRequestedReply(record.headers, record.body)
    } catch (error) {
      return sendJson(response, 400, {
        error: { message: (error as Error).message, type: 'invalid_mock_reply' },
      })
    }
    reply ??= queue.shift() ?? script.default ?? options.respond?.(record) ?? {}
    await sendMockReply({ api, reply, record, response, model })
  }

  const server = createServer((incoming, response) => {
    handle(incoming, response).catch((error: Error) => {
      if (!response.headersSent)
        sendJson(response, 500, { error: { message: error.message, type: 'mock_error' } })
      else response.destroy()
    })
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => resolve())
  })
  if (options.unref) {
    server.unref()
    // Kept-alive connections would hold the process open for the keep-alive timeout otherwise.
    server.on('connection', (socket) => socket.unref())
  }
  const address = server.address() as AddressInfo
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address

  return {
    url: `http://${host}:${address.port}`,
    port: address.port,
    requests,
    script(replies) {
      const list = Array.isArray(replies) ? replies : [replies]
      queue.push(...list.map((reply, index) => parseMockReply(reply, `scripted reply ${index}`)))
    },
    reset() {
      queue.length = 0
      requests.length = 0
    },
    close() {
      return new Promise((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      })
    },
  }
}
