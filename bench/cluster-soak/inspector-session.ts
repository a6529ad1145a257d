/**
 * The soak's view into a server process: a Chrome DevTools Protocol session on its inspector
 * (`--inspect`), for the live heap after forced collections and heap snapshots. Only HeapProfiler and
 * Runtime methods are called; the debugger is never enabled, so the server runs as it would without.
 */

import { once } from 'node:events'
import { createWriteStream } from 'node:fs'
import WebSocket from 'ws'

export interface InspectorSession {
  /** The V8 heap still used after two full collections, in MB. */
  readLiveHeapMb(): Promise<number>
  /** Writes a `.heapsnapshot` of the process to `path`. */
  writeHeapSnapshot(path: string): Promise<void>
  close(): void
}

interface ProtocolMessage {
  id?: number
  method?: string
  params?: Record<string, unknown>
  result?: Record<string, unknown>
  error?: { message: string }
}

export async function openInspectorSession(debuggerUrl: string): Promise<InspectorSession> {
  const socket = new WebSocket(debuggerUrl, { maxPayload: 1024 ** 3 })
  await once(socket, 'open')
  let nextId = 0
  const pending = new Map<
    number,
    { resolve: (result: Record<string, unknown>) => void; reject: (error: Error) => void }
  >()
  const eventListeners = new Set<(message: ProtocolMessage) => void>()
  socket.on('message', (data) => {
    const message = JSON.parse(data.toString()) as ProtocolMessage
    if (message.id === undefined) {
      for (const listener of eventListeners) listener(message)
      return
    }
    const waiter = pending.get(message.id)
    pending.delete(message.id)
    if (message.error) waiter?.reject(new Error(message.error.message))
    else waiter?.resolve(message.result ?? {})
  })
  const call = (method: string, params: Record<string, unknown> = {}) =>
    new Promise<Record<string, unknown>>((resolve, reject) => {
      const id = ++nextId
      pending.set(id, { resolve, reject })
      socket.send(JSON.stringify({ id, method, params }))
    })

  return {
    async readLiveHeapMb() {
      await call('HeapProfiler.collectGarbage')
      await call('HeapProfiler.collectGarbage')
      const usage = await call('Runtime.getHeapUsage')
      return Math.round(((usage.usedSize as number) / 1e6) * 10) / 10
    },
    async writeHeapSnapshot(path) {
      const file = createWriteStream(path)
      const onChunk = (message: ProtocolMessage) => {
        if (message.method === 'HeapProfiler.addHeapSnapshotChunk')
          file.write(message.params!.chunk as string)
      }
      eventListeners.add(onChunk)
      try {
        await call('HeapProfiler.takeHeapSnapshot', { reportProgress: false })
      } finally {
        eventListeners.delete(onChunk)
        file.end()
        await once(file, 'close')
      }
    },
    close: () => socket.close(),
  }
}
