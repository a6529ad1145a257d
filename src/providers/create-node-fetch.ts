/**
 * A `fetch` for the SDKs built on `node:http`/`node:https` with keep-alive agents. The global fetch
 * (undici) costs about 1 ms of CPU per streamed request on top of the SDK (WHATWG streams, body tee,
 * abort plumbing), which at hundreds of concurrent turns is a large share of the process. Requests
 * go out the same (method, headers, body); answers come back as a `Response`, so the SDK checks the
 * status and reads error bodies as it does with any fetch.
 *
 * A streamed 2xx answer (`text/event-stream`) is not copied into a web stream: its Node message is
 * kept beside the `Response` and the provider reads it directly with `takeNodeBody`. Anyone else
 * asking for `response.body` still gets a web stream of it, built on first use.
 */
import type { ClientRequest, IncomingMessage, RequestOptions } from 'node:http'
import { createRequire } from 'node:module'
import type { Readable } from 'node:stream'
import { urlToHttpOptions } from 'node:url'
import { UpstreamStreamError } from '../shared/errors.js'
import { limitResponseBody } from '../shared/limit-response-body.js'

// The Node modules of a request load with the first fetch made here, not with `import('charpipe')`
// (together they cost about as much as the rest of the library's import).
const require = createRequire(import.meta.url)
let nodeModules:
  | {
      http: typeof import('node:http')
      https: typeof import('node:https')
      stream: typeof import('node:stream')
      zlib: typeof import('node:zlib')
    }
  | undefined
const loadNodeModules = () => {
  nodeModules ??= {
    http: require('node:http'),
    https: require('node:https'),
    stream: require('node:stream'),
    zlib: require('node:zlib'),
  }
  return nodeModules
}

export interface NodeFetch {
  readonly fetch: typeof fetch
  /** Closes the idle kept-alive connections. */
  close(): void
}

const streamedBodies = new WeakMap<Response, Readable>()

/** The Node stream behind a streamed answer of a `NodeFetch`, once (the caller reads it). */
export function takeNodeBody(response: Response): Readable | undefined {
  const message = streamedBodies.get(response)
  if (message) streamedBodies.delete(response)
  return message
}

type StreamedNodeResponseClass = new (message: Readable, init: ResponseInit) => Response
let streamedNodeResponse: StreamedNodeResponseClass | undefined

/**
 * Declared on first use: `extends Response` reads the global `Response`, which loads Node's whole
 * fetch implementation (undici, about 20 ms), and `import('charpipe')` should not pay for that.
 */
function loadStreamedNodeResponse(): StreamedNodeResponseClass {
  streamedNodeResponse ??= class StreamedNodeResponse extends Response {
    #message: Readable
    #body: ReadableStream<Uint8Array<ArrayBuffer>> | undefined

    constructor(message: Readable, init: ResponseInit) {
      super(null, init)
      this.#message = message
    }

    override get body(): ReadableStream<Uint8Array<ArrayBuffer>> {
      streamedBodies.delete(this)
      this.#body ??= loadNodeModules().stream.Readable.toWeb(this.#message) as ReadableStream<
        Uint8Array<ArrayBuffer>
      >
      return this.#body
    }

    override get bodyUsed(): boolean {
      return this.#body !== undefined || !streamedBodies.has(this)
    }

    override async arrayBuffer(): Promise<ArrayBuffer> {
      return new Response(this.body).arrayBuffer()
    }

    override async text(): Promise<string> {
      return new Response(this.body).text()
    }

    override async json(): Promise<unknown> {
      return JSON.parse(await this.text())
    }
  }
  return streamedNodeResponse
}

function toHeaderRecord(headers: HeadersInit | undefined): Record<string, string> {
  const record: Record<string, string> = {}
  if (!headers) return record
  if (headers instanceof Headers) {
    headers.forEach((value, name) => {
      record[name] = value
    })
  } else if (Array.isArray(headers)) {
    for (const [name, value] of headers) record[name.toLowerCase()] = value!
  } else {
    for (const [name, value] of Object.entries(headers)) record[name.toLowerCase()] = value
  }
  return record
}

function toResponseHeaders(message: IncomingMessage): Headers {
  const headers = new Headers()
  const raw = message.rawHeaders
  for (let index = 0; index + 1 < raw.length; index += 2) headers.append(raw[index]!, raw[index + 1]!)
  return headers
}

function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException('This operation was aborted', 'AbortError')
}

/**
 * A request that went out on a kept-alive connection the server closed at that moment (its idle
 * timeout ran out as the request was written, before this process had read the close): the server
 * closed it idle, without reading the request, so it is sent again on another connection. Node's
 * agent keeps idle connections until the server closes them (it reads the server's `Keep-Alive:
 * timeout` hint only with an agent timeout), so a request sent right at the server's timeout meets
 * such a connection. A failure of a new connection is the server's answer and is not sent again.
 */
function isStaleConnectionFailure(request: ClientRequest, error: NodeJS.ErrnoException): boolean {
  return request.reusedSocket && (error.code === 'ECONNRESET' || error.code === 'EPIPE')
}

/** Statuses whose `Response` must have no body. */
const bodylessStatuses = new Set([101, 103, 204, 205, 304])

/** Statuses fetch follows (with `redirect: 'follow'`, its default). */
const redirectStatuses = new Set([301, 302, 303, 307, 308])

/**
 * The body as sent, decompressed when the server used a content coding anyway (none is asked for,
 * but fetch decodes them, so this one does too).
 */
function decodeBody(message: IncomingMessage): Readable {
  const coding = (message.headers['content-encoding'] ?? '').trim().toLowerCase()
  const { stream, zlib } = loadNodeModules()
  const decoder =
    coding === 'gzip' || coding === 'x-gzip'
      ? zlib.createGunzip()
      : coding === 'deflate'
        ? zlib.createInflate()
        : coding === 'br'
          ? zlib.createBrotliDecompress()
          : undefined
  if (!decoder) return message
  // A failure of either side reaches the decoder, which is what gets read.
  return stream.pipeline(message, decoder, () => {})
}

/** Largest answer read whole (an error body, an embeddings answer), counted after decompression. */
export const maxAnswerBytes = 64 * 1024 * 1024

/** The error of an answer read whole that passed `maxBytes`. */
function refuseLongAnswer(maxBytes: number, how = ''): UpstreamStreamError {
  return new UpstreamStreamError(`the upstream's answer passed ${maxBytes} bytes${how}: refused`)
}

/**
 * The whole body, at most `maxBytes` of it after decompression: past that the read stops and the
 * answer is refused (a gzip body of a few kilobytes can inflate to gigabytes).
 */
async function readAll(message: Readable, maxBytes: number, decompressed: boolean): Promise<Buffer> {
  const chunks: Buffer[] = []
  let bytes = 0
  for await (const chunk of message) {
    bytes += (chunk as Buffer).length
    if (bytes > maxBytes) {
      message.destroy()
      throw refuseLongAnswer(maxBytes, decompressed ? ' once decompressed' : '')
    }
    chunks.push(chunk as Buffer)
  }
  return Buffer.concat(chunks)
}

const builtinFetch = globalThis.fetch
// undici up to 7 (Node 20 to 24) keeps the global dispatcher in slot 1. undici 8 (Node 26) keeps it
// in slot 2 and puts a `Dispatcher1Wrapper` of it in slot 1 for older undici copies; an older copy's
// `setGlobalDispatcher` still writes slot 1 alone.
const dispatcherKeys = [Symbol.for('undici.globalDispatcher.1'), Symbol.for('undici.globalDispatcher.2')]
const defaultDispatcherNames = new Set(['Agent', 'Dispatcher1Wrapper'])

/**
 * Whether the application has routed the global fetch somewhere (its own `fetch`, a proxy dispatcher
 * set with undici's `setGlobalDispatcher`, Node's env proxy support): then requests go through it,
 * as they did when the SDKs used the global fetch.
 */
function isGlobalFetchRouted(): boolean {
  if (globalThis.fetch !== builtinFetch) return true
  const slots = globalThis as unknown as Record<symbol, { constructor?: { name?: string } } | undefined>
  for (const key of dispatcherKeys) {
    const dispatcher = slots[key]
    if (dispatcher && !defaultDispatcherNames.has(dispatcher.constructor?.name ?? '')) return true
  }
  return Boolean(process.env.NODE_USE_ENV_PROXY)
}

/**
 * Creates a fetch with its own keep-alive agents. Bodies other than text and bytes (forms, streams),
 * and every request while the global fetch is routed elsewhere, go through `fallback` (the global
 * fetch of the moment by default).
 */
export interface NodeFetchLimits {
  /** Largest answer read whole, after decompression. @default maxAnswerBytes */
  maxAnswerBytes?: number
}

export function createNodeFetch(fallback?: typeof fetch, limits: NodeFetchLimits = {}): NodeFetch {
  const { http, https } = loadNodeModules()
  const httpAgent = new http.Agent({ keepAlive: true })
  const httpsAgent = new https.Agent({ keepAlive: true })

  const maxBytes = limits.maxAnswerBytes ?? maxAnswerBytes
  const callFallback = async (input: string | URL | Request, init: RequestInit) =>
    // The same bound on a body read whole; a streamed answer (server-sent events) is left as it is:
    // its reader bounds each line.
    limitResponseBody(await (fallback ?? globalThis.fetch)(input, init), {
      maxBytes,
      refuse: () => refuseLongAnswer(maxBytes),
    })

  // A provider calls the same few URLs every turn: each is parsed once.
  const targets = new Map<string, RequestOptions>()
  const readTarget = (input: string | URL): RequestOptions => {
    if (typeof input !== 'string') return urlToHttpOptions(input)
    let target = targets.get(input)
    if (!target) {
      target = urlToHttpOptions(new URL(input))
      if (targets.size >= 32) targets.clear()
      targets.set(input, target)
    }
    return target
  }

  const nodeFetch = (async (input: string | URL | Request, init: RequestInit = {}): Promise<Response> => {
    const body = init.body
    const sendable =
      body === undefined || body === null || typeof body === 'string' || body instanceof Uint8Array
    if (input instanceof Request || !sendable || isGlobalFetchRouted()) return callFallback(input, init)
    const target = readTarget(input)
    const secure = target.protocol === 'https:'
    if (!secure && target.protocol !== 'http:') return callFallback(input, init)
    const signal = init.signal ?? undefined
    if (signal?.aborted) throw abortReason(signal)

    const headers = toHeaderRecord(init.headers)
    const payload = body ?? undefined
    if (payload !== undefined && headers['content-length'] === undefined) {
      headers['content-length'] = String(
        typeof payload === 'string' ? Buffer.byteLength(payload) : payload.byteLength,
      )
    }

    return new Promise<Response>((resolve, reject) => {
      const send = secure ? https.request : http.request
      let outgoing: ClientRequest
      const onAbort = () => {
        const reason = abortReason(signal!)
        outgoing.destroy(reason instanceof Error ? reason : undefined)
        reject(reason)
      }
      const detach = () => signal?.removeEventListener('abort', onAbort)
      signal?.addEventListener('abort', onAbort, { once: true })
      const start = () => {
        const request = send({
          ...target,
          method: init.method ?? 'GET',
          headers,
          agent: secure ? httpsAgent : httpAgent,
        })
        // The one an abort destroys.
        outgoing = request
        let answered = false
        request.on('error', (error) => {
          if (!answered && !signal?.aborted && isStaleConnectionFailure(request, error)) {
            start()
            return
          }
          detach()
          // The shape undici gives a network failure, which the SDKs map to a connection error.
          reject(new TypeError('fetch failed', { cause: error }))
        })
        request.on('response', (message) => {
          answered = true
          message.once('close', detach)
          const status = message.statusCode ?? 0
          const responseInit: ResponseInit = {
            status,
            statusText: message.statusMessage ?? '',
            headers: toResponseHeaders(message),
          }
          const follow = (init.redirect ?? 'follow') === 'follow'
          if (follow && redirectStatuses.has(status) && message.headers.location) {
            // Rare for an API: the global fetch follows it with all of its rules.
            message.resume()
            detach()
            resolve(callFallback(input, init))
            return
          }
          const contentType = message.headers['content-type'] ?? ''
          if (status >= 200 && status < 300 && contentType.includes('text/event-stream')) {
            const body = decodeBody(message)
            const response = new (loadStreamedNodeResponse())(body, responseInit)
            streamedBodies.set(response, body)
            resolve(response)
            return
          }
          const body = decodeBody(message)
          readAll(body, maxBytes, body !== message).then(
            (buffer) =>
              resolve(
                new Response(bodylessStatuses.has(status) ? null : new Uint8Array(buffer), responseInit),
              ),
            (error: unknown) => reject(new TypeError('fetch failed', { cause: error })),
          )
        })
        request.end(payload)
      }
      start()
    })
  }) as typeof fetch

  return {
    fetch: nodeFetch,
    close() {
      httpAgent.destroy()
      httpsAgent.destroy()
    },
  }
}
