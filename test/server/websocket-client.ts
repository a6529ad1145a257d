/** A `ws` client that keeps every frame it receives and waits for the ones a test needs. */
import WebSocket from 'ws'

export interface TestSocket {
  socket: WebSocket
  frames: Record<string, unknown>[]
  send(frame: unknown): void
  sendRaw(data: string | Buffer): void
  /** Resolves with the first received frame (from `from` on) matching `predicate`. */
  waitFor(
    predicate: (frame: Record<string, unknown>) => boolean,
    from?: number,
  ): Promise<Record<string, unknown>>
  /** Every frame of one turn, up to and including its llm_done. */
  waitForTurn(session: string, from?: number): Promise<Record<string, unknown>[]>
  close(): Promise<void>
}

export async function openTestSocket(url: string, headers: Record<string, string> = {}): Promise<TestSocket> {
  const socket = new WebSocket(url.replace(/^http/, 'ws'), { headers })
  const frames: Record<string, unknown>[] = []
  const waiters = new Set<() => void>()
  socket.on('message', (data) => {
    frames.push(JSON.parse(data.toString()))
    for (const wake of waiters) wake()
  })
  await new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve())
    socket.once('error', reject)
    socket.once('unexpected-response', (_request, response) =>
      reject(new Error(`HTTP ${response.statusCode}`)),
    )
  })
  const waitFor: TestSocket['waitFor'] = (predicate, from = 0) =>
    new Promise((resolve, reject) => {
      // Each wait removes its own listeners once it settles: a test that waits many times on one
      // socket would otherwise pile up 'close' listeners (Node warns past ten).
      const onClose = () => {
        waiters.delete(check)
        reject(new Error('socket closed while waiting'))
      }
      const check = () => {
        const found = frames.slice(from).find(predicate)
        if (found) {
          waiters.delete(check)
          socket.off('close', onClose)
          resolve(found)
        }
      }
      waiters.add(check)
      socket.once('close', onClose)
      check()
    })
  return {
    socket,
    frames,
    send: (frame) => socket.send(JSON.stringify(frame)),
    sendRaw: (data) => socket.send(data),
    waitFor,
    async waitForTurn(session, from = 0) {
      const done = await waitFor((frame) => frame.type === 'llm_done' && frame.session === session, from)
      return frames.slice(from).filter((frame) => frame.session === session && frame.turn === done.turn)
    },
    close: () =>
      new Promise((resolve) => {
        if (socket.readyState === WebSocket.CLOSED) return resolve()
        socket.once('close', () => resolve())
        socket.close()
      }),
  }
}
