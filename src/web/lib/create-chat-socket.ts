/**
 * The WebSocket to `/ws`, reconnecting with a growing delay after any close. The token goes in the
 * query string because browsers cannot set headers on a WebSocket.
 */
import { readToken } from './token-store.js'

export type SocketStatus = 'connecting' | 'open' | 'closed'

/** A server frame: a turn event (`llm_chunk`, …) or an `error` for a bad frame. */
export interface ServerFrame {
  type: string
  session?: string
  turn?: string
  [key: string]: unknown
}

export interface ChatSocketOptions {
  onFrame(frame: ServerFrame): void
  onStatus(status: SocketStatus): void
}

export interface ChatSocket {
  /** Sends a frame; false when the socket is not open (the caller shows that). */
  send(frame: Record<string, unknown>): boolean
  /** Drops the connection and connects again at once (after a new token). */
  reconnect(): void
  close(): void
}

function buildSocketUrl(location: Location, token: string): string {
  const scheme = location.protocol === 'https:' ? 'wss:' : 'ws:'
  const query = token ? `?token=${encodeURIComponent(token)}` : ''
  return `${scheme}//${location.host}/ws${query}`
}

export function createChatSocket(options: ChatSocketOptions): ChatSocket {
  let socket: WebSocket | undefined
  let retryDelay = 500
  let retryTimer: ReturnType<typeof setTimeout> | undefined
  let stopped = false

  const connect = () => {
    if (stopped) return
    options.onStatus('connecting')
    const current = new WebSocket(buildSocketUrl(window.location, readToken()))
    socket = current
    current.onopen = () => {
      retryDelay = 500
      options.onStatus('open')
    }
    current.onmessage = (message) => {
      try {
        options.onFrame(JSON.parse(String(message.data)) as ServerFrame)
      } catch {
        options.onFrame({ type: 'error', code: 'bad_frame', message: String(message.data).slice(0, 200) })
      }
    }
    current.onclose = () => {
      if (socket !== current) return
      options.onStatus('closed')
      if (stopped) return
      retryTimer = setTimeout(connect, retryDelay)
      retryDelay = Math.min(retryDelay * 2, 8000)
    }
  }

  connect()
  return {
    send(frame) {
      if (socket?.readyState !== WebSocket.OPEN) return false
      socket.send(JSON.stringify(frame))
      return true
    },
    reconnect() {
      clearTimeout(retryTimer)
      const previous = socket
      socket = undefined
      previous?.close()
      retryDelay = 500
      connect()
    },
    close() {
      stopped = true
      clearTimeout(retryTimer)
      socket?.close()
    },
  }
}
