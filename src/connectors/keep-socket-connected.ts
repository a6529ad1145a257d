/**
 * A WebSocket that dials again after it drops, with exponential backoff (doubling from
 * `initialMs` to `maxMs`, a fifth of jitter, reset once a connection opens). Used by the connectors
 * that dial out: one implementation going away costs its own reconnect timer, nothing else. The
 * address may be asked anew before each dial (Bilibili hands out a fresh token per connection); a
 * failed ask counts as a failed dial.
 */
import WebSocket from 'ws'

/** The largest frame a connector reads from the platform it dials (`ws` would take 100 MiB). */
export const connectorFrameBytes = 4 * 1024 * 1024

export interface Backoff {
  initialMs: number
  maxMs: number
}

const defaultBackoff: Backoff = { initialMs: 1000, maxMs: 30_000 }

export interface KeepSocketConnectedOptions {
  /** The address, or a function asked for it before every dial. */
  url: string | (() => Promise<string>)
  headers?: Record<string, string>
  backoff?: Backoff
  onOpen: () => void
  onMessage: (text: string) => void
  /** Binary frames; without it they are ignored. */
  onBinaryMessage?: (data: Buffer) => void
  /** A connection ended or could not be made; `reason` names why (no secrets: headers are not in it). */
  onDown: (reason: string) => void
  /** Largest frame accepted. @default 4 MiB */
  maxPayload?: number
  /**
   * `open`: the backoff starts over once a connection opens; `manual`: only on `resetBackoff()`, for a
   * protocol whose login comes after the open (a refused login then waits longer each time).
   * @default 'open'
   */
  resetBackoffOn?: 'open' | 'manual'
}

export interface KeptSocket {
  /** Sends on the open connection (a Buffer as a binary frame); false when there is none. */
  send(data: string | Buffer): boolean
  isOpen(): boolean
  /** Drops the connection and dials again at once (the server asked us to reconnect). */
  redial(): void
  /** Drops the connection and dials again after the backoff (a refused login, a silent server). */
  drop(): void
  /** The connection is good: the next failure starts the backoff over. */
  resetBackoff(): void
  close(): void
}

export function keepSocketConnected(options: KeepSocketConnectedOptions): KeptSocket {
  const backoff = options.backoff ?? defaultBackoff
  let delay = backoff.initialMs
  let socket: WebSocket | undefined
  let timer: NodeJS.Timeout | undefined
  let closed = false

  const scheduleRetry = () => {
    if (closed) return
    const jitter = delay * 0.2 * (Math.random() * 2 - 1)
    timer = setTimeout(dial, Math.max(0, delay + jitter))
    delay = Math.min(Math.max(delay * 2, backoff.initialMs), backoff.maxMs)
  }

  function dial() {
    timer = undefined
    if (closed) return
    if (typeof options.url === 'string') return open(options.url)
    options.url().then(
      (url) => open(url),
      (error: Error) => {
        if (closed) return
        options.onDown(error.message)
        scheduleRetry()
      },
    )
  }

  function open(url: string) {
    if (closed) return
    const current = new WebSocket(url, {
      headers: options.headers,
      maxPayload: options.maxPayload ?? connectorFrameBytes,
      handshakeTimeout: 10_000,
    })
    socket = current
    let downReason: string | undefined
    current.on('open', () => {
      if (options.resetBackoffOn !== 'manual') delay = backoff.initialMs
      options.onOpen()
    })
    current.on('message', (data, isBinary) => {
      if (!isBinary) options.onMessage(data.toString())
      else options.onBinaryMessage?.(Buffer.isBuffer(data) ? data : Buffer.concat(data as Buffer[]))
    })
    current.on('unexpected-response', (_request, response) => {
      downReason = `the server answered the WebSocket upgrade with HTTP ${response.statusCode}`
      current.terminate()
    })
    current.on('error', (error) => {
      downReason ??= describeSocketError(error)
    })
    current.on('close', (code, reason) => {
      if (socket === current) socket = undefined
      if (closed) return
      options.onDown(
        downReason ?? `the connection closed (${code}${reason.length > 0 ? ` ${reason.toString()}` : ''})`,
      )
      scheduleRetry()
    })
  }

  dial()
  return {
    send(data) {
      if (socket?.readyState !== WebSocket.OPEN) return false
      socket.send(data)
      return true
    },
    isOpen: () => socket?.readyState === WebSocket.OPEN,
    redial() {
      delay = 0
      socket?.terminate()
    },
    drop() {
      socket?.terminate()
    },
    resetBackoff() {
      delay = backoff.initialMs
    },
    close() {
      closed = true
      if (timer) clearTimeout(timer)
      socket?.close(1000)
      socket = undefined
    },
  }
}

function describeSocketError(error: Error & { code?: string }): string {
  if (error.code === 'ECONNREFUSED') return 'connection refused'
  if (error.code === 'ENOTFOUND') return 'host not found'
  if (error.code === 'ETIMEDOUT') return 'connection timed out'
  return error.message
}
