/**
 * A POST whose answer is not read: its socket is paused as soon as the answer's head arrives, so
 * the reader is slow by construction (what the server sends waits in the kernel's buffers, then in
 * the server's own bound) and nothing depends on how fast this machine runs. The request has a
 * socket of its own, never one kept alive from an earlier request that the server may be closing.
 */
import { request } from 'node:http'

export interface PausedStream {
  status: number
  /** Reads what is left, up to the answer's end or the connection's (a server's cut ends it early). */
  readTheRest(): Promise<string>
}

export interface OpenPausedStreamOptions {
  url: string
  headers: Record<string, string>
  body: string
}

export function openPausedStream(options: OpenPausedStreamOptions): Promise<PausedStream> {
  return new Promise((resolve, reject) => {
    const outgoing = request(
      options.url,
      {
        method: 'POST',
        headers: { ...options.headers, 'content-length': String(Buffer.byteLength(options.body)) },
        agent: false,
      },
      (response) => {
        response.pause()
        response.socket.pause()
        let text = ''
        const closed = new Promise<void>((done) => response.once('close', done))
        response.on('error', () => {
          // The server cut the connection: what arrived before it is the answer.
        })
        const readTheRest = async () => {
          response.setEncoding('utf8')
          response.on('data', (chunk: string) => {
            text += chunk
          })
          response.socket?.resume()
          response.resume()
          await closed
          return text
        }
        resolve({ status: response.statusCode ?? 0, readTheRest })
      },
    )
    outgoing.once('error', reject)
    outgoing.end(options.body)
  })
}
