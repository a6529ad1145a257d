/**
 * Puts the server on a host and port. `close()` stops accepting connections, ends running turns
 * (stored as interrupted), closes the sockets and the stores.
 */

import type { Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { serve } from '@hono/node-server'
import { type CharpipeServer, type CreateServerOptions, createServer } from './create-server.js'

export interface StartServerOptions extends CreateServerOptions {
  /** 0 picks a free port. @default config server.port */
  port?: number
}

export interface StartServerResult {
  /** `http://HOST:PORT` with the port actually bound. */
  url: string
  host: string
  port: number
  server: CharpipeServer
  close(): Promise<void>
}

export async function startServer(options: StartServerOptions): Promise<StartServerResult> {
  const server = await createServer(options)
  const config = server.configManager.current()
  const host = options.host ?? config.server.host
  const requestedPort = options.port ?? config.server.port
  let httpServer: Server
  try {
    httpServer = await new Promise<Server>((resolve, reject) => {
      const started = serve({ fetch: server.app.fetch, hostname: host, port: requestedPort }, () =>
        resolve(started as Server),
      ) as Server
      started.once('error', reject)
    })
  } catch (error) {
    await server.close()
    throw error
  }
  server.injectWebSocket(httpServer)
  const port = (httpServer.address() as AddressInfo).port
  const urlHost = host.includes(':') ? `[${host}]` : host
  let closing: Promise<void> | undefined
  return {
    url: `http://${urlHost}:${port}`,
    host,
    port,
    server,
    close() {
      closing ??= (async () => {
        const stopped = new Promise<void>((resolve) => httpServer.close(() => resolve()))
        await server.close()
        httpServer.closeIdleConnections()
        // Streams still open after the turns ended get a moment to flush, then go.
        const timer = setTimeout(() => httpServer.closeAllConnections(), 1000)
        await stopped
        clearTimeout(timer)
      })()
      return closing
    },
  }
}
