/**
 * A TCP proxy between the servers and a store, for the fault suite: it can stall (connections stay
 * open and new ones are accepted, but nothing is forwarded either way, as in a network partition),
 * resume (what was held goes through, as TCP delivers it once the network is back) and drop every
 * connection (as a peer that resets them).
 *
 * Stalling pauses both sockets of each pair, so the bytes wait in the kernel's buffers, not here.
 */
import { createConnection, createServer, type Socket } from 'node:net'

export interface TcpProxy {
  /** `host:port` to give the servers in place of the store's own. */
  readonly port: number
  /**
   * Stops forwarding in both directions; connections stay open, new ones are accepted. `replies`:
   * only the store's answers are held (the commands get through, their answers are lost in the way).
   */
  stall(direction?: 'both' | 'replies'): void
  /** Forwards again, held bytes first. */
  resume(): void
  /** Resets every open connection (both sides). */
  dropAll(): void
  readonly stalled: boolean
  close(): Promise<void>
}

export async function startTcpProxy(targetPort: number, targetHost = '127.0.0.1'): Promise<TcpProxy> {
  const pairs = new Set<[Socket, Socket]>()
  let stalled = false

  const server = createServer((client) => {
    const upstream = createConnection({ port: targetPort, host: targetHost })
    const pair: [Socket, Socket] = [client, upstream]
    pairs.add(pair)
    client.setNoDelay(true)
    upstream.setNoDelay(true)
    // A connection made during a stall is accepted and then hears nothing until `resume`.
    if (stalled) {
      client.pause()
      upstream.pause()
    } else {
      client.pipe(upstream)
      upstream.pipe(client)
    }
    const end = () => {
      pairs.delete(pair)
      client.destroy()
      upstream.destroy()
    }
    client.on('error', end)
    upstream.on('error', end)
    client.on('close', end)
    upstream.on('close', end)
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => resolve())
  })
  const { port } = server.address() as { port: number }

  return {
    port,
    get stalled() {
      return stalled
    },
    stall(direction = 'both') {
      if (stalled) return
      stalled = true
      for (const [client, upstream] of pairs) {
        // `pipe` resumes a paused source when its destination drains; unpipe so nothing flows.
        upstream.unpipe(client)
        upstream.pause()
        if (direction === 'replies') continue
        client.unpipe(upstream)
        client.pause()
      }
    },
    resume() {
      if (!stalled) return
      stalled = false
      for (const [client, upstream] of pairs) {
        client.unpipe(upstream)
        client.pipe(upstream)
        upstream.pipe(client)
        client.resume()
        upstream.resume()
      }
    },
    dropAll() {
      for (const pair of [...pairs]) {
        pairs.delete(pair)
        for (const socket of pair) socket.resetAndDestroy()
      }
    },
    async close() {
      for (const pair of [...pairs]) for (const socket of pair) socket.destroy()
      pairs.clear()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}
