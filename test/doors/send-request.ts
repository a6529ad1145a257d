/**
 * One HTTP request on a socket of its own, its whole answer read: what the fuzzed doors send
 * (any method, any content type, any bytes). A socket kept alive from an earlier request could be
 * closed by the server just as the next request goes out on a loaded machine; a fresh one cannot.
 */
import { request } from 'node:http'

export interface SendRequestOptions {
  url: string
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'
  headers: Record<string, string>
  body?: string
  /** Silence after which the request counts as unanswered. */
  guardMs?: number
}

export interface SentRequest {
  status: number
  contentType: string
  text: string
}

export function sendRequest(options: SendRequestOptions): Promise<SentRequest> {
  return new Promise((resolve, reject) => {
    const body = options.body === undefined ? undefined : Buffer.from(options.body)
    const outgoing = request(
      options.url,
      {
        method: options.method,
        headers: { ...options.headers, ...(body ? { 'content-length': String(body.length) } : {}) },
        agent: false,
      },
      (response) => {
        const chunks: Buffer[] = []
        response.on('data', (chunk: Buffer) => chunks.push(chunk))
        response.once('error', reject)
        response.once('end', () =>
          resolve({
            status: response.statusCode ?? 0,
            contentType: String(response.headers['content-type'] ?? ''),
            text: Buffer.concat(chunks).toString('utf8'),
          }),
        )
      },
    )
    // A guard against a door that never answers (the case is then reported), not a measure.
    outgoing.setTimeout(options.guardMs ?? 20_000, () =>
      outgoing.destroy(new Error(`no answer within ${options.guardMs ?? 20_000} ms of silence`)),
    )
    outgoing.once('error', reject)
    outgoing.end(body)
  })
}
