/**
 * One client of the cluster soak: turns one after another over a WebSocket, across a rotating set
 * of sessions. It reconnects every `reconnectEvery` turns to the next server, so a session comes back
 * on another server than the one it was last on; every `interruptEvery`-th turn is interrupted from
 * a second socket on yet another server (the interrupt reaches the turn through the cluster's
 * channel).
 */
import { once } from 'node:events'
import WebSocket from 'ws'

export interface SoakClientOptions {
  client: number
  serverUrls: string[]
  sessions: number
  reconnectEvery: number
  interruptEvery: number
  /** Whether to start another turn. */
  keepGoing: () => boolean
  /** Called at each turn's `llm_done`, with the turn's error code if it had one. */
  onTurn: (errorCode: string | undefined) => void
}

async function openSocket(httpUrl: string): Promise<WebSocket> {
  const socket = new WebSocket(`${httpUrl.replace('http', 'ws')}/ws`)
  await once(socket, 'open')
  return socket
}

async function closeSocket(socket: WebSocket): Promise<void> {
  if (socket.readyState === WebSocket.CLOSED) return
  const closed = once(socket, 'close')
  socket.close()
  await closed
}

interface TurnFrame {
  type: string
  session?: string
  code?: string
}

/** Sends one input; resolves at its `llm_done` with the code of an `llm_error` before it, if any. */
function runTurn(socket: WebSocket, session: string, text: string, onFirstChunk?: () => void) {
  return new Promise<string | undefined>((resolve) => {
    let errorCode: string | undefined
    let chunked = false
    const onMessage = (data: Buffer) => {
      const frame = JSON.parse(data.toString()) as TurnFrame
      if (frame.session !== session) return
      if (frame.type === 'llm_chunk' && !chunked) {
        chunked = true
        onFirstChunk?.()
      }
      if (frame.type === 'llm_error') errorCode = frame.code
      if (frame.type !== 'llm_done') return
      socket.off('message', onMessage)
      resolve(errorCode)
    }
    socket.on('message', onMessage)
    socket.send(JSON.stringify({ type: 'user_input', session, text }))
  })
}

export async function runSoakClient(options: SoakClientOptions): Promise<void> {
  const { client, serverUrls } = options
  const serverOf = (index: number) => serverUrls[index % serverUrls.length]!
  let connection = client
  let socket = await openSocket(serverOf(connection))
  let interrupter = await openSocket(serverOf(connection + 1))
  for (let turn = 0; options.keepGoing(); turn++) {
    if (turn > 0 && turn % options.reconnectEvery === 0) {
      await Promise.all([closeSocket(socket), closeSocket(interrupter)])
      connection++
      socket = await openSocket(serverOf(connection))
      interrupter = await openSocket(serverOf(connection + 1))
    }
    const session = `cluster-soak-${client}-${turn % options.sessions}`
    const interrupt =
      turn % options.interruptEvery === options.interruptEvery - 1
        ? () => interrupter.send(JSON.stringify({ type: 'interrupt', session }))
        : undefined
    options.onTurn(await runTurn(socket, session, `第${turn}句`, interrupt))
  }
  await Promise.all([closeSocket(socket), closeSocket(interrupter)])
}
