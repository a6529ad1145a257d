/**
 * A OneBot v11 implementation as its specification describes one (what NapCat, Lagrange and
 * LLOneBot do for a bot account), small enough to read: it pushes message and meta events as JSON
 * frames, answers API calls (`send_group_msg`, `send_private_msg`) with `status`, `retcode`, `data`
 * and the caller's `echo`, and records every call. Forward: it listens and checks the access token;
 * reverse: it dials charpipe's `listen` path with `X-Self-ID`, `X-Client-Role` and the token. It can
 * be killed and started again on the same port.
 */
import type { AddressInfo } from 'node:net'
import WebSocket, { WebSocketServer } from 'ws'

export interface OnebotCall {
  action: string
  params: Record<string, unknown>
  echo: unknown
}

export interface GroupMessageOptions {
  groupId: number
  userId: number
  message: unknown
  nickname?: string
  card?: string
  role?: 'owner' | 'admin' | 'member'
}

export interface FakeOnebot {
  selfId: number
  calls: OnebotCall[]
  /** The message ids the fake gave the messages sent through it, in order. */
  sentIds: number[]
  /** Forward mode: `ws://127.0.0.1:PORT`. */
  url: string
  /** Sends a group message event; returns its message id. */
  sendGroupMessage(options: GroupMessageOptions): number
  sendPrivateMessage(options: { userId: number; text: string; nickname?: string }): number
  /** Sends any frame as it is (a bad one, a meta event). */
  sendRaw(frame: string): void
  connectedCount(): number
  /** Closes every connection and stops listening (forward) or dialling (reverse). */
  kill(): Promise<void>
  restart(): Promise<void>
  close(): Promise<void>
}

export interface StartFakeOnebotOptions {
  accessToken?: string
  selfId?: number
  /** Reverse mode: the charpipe URL to dial (ws://…/onebot/qq). */
  reverseUrl?: string
  /** Answer API calls with this instead of success (a retcode failure). */
  failCalls?: boolean
}

export async function startFakeOnebot(options: StartFakeOnebotOptions = {}): Promise<FakeOnebot> {
  const selfId = options.selfId ?? 10001
  const calls: OnebotCall[] = []
  const sentIds: number[] = []
  const sockets = new Set<WebSocket>()
  let nextMessageId = 1000
  let server: WebSocketServer | undefined
  let port = 0

  const attach = (socket: WebSocket) => {
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
    socket.on('message', (data) => {
      const call = JSON.parse(data.toString()) as OnebotCall
      calls.push(call)
      nextMessageId += 1
      if (!options.failCalls) sentIds.push(nextMessageId)
      const answer =
        call.action === 'get_login_info'
          ? { user_id: selfId, nickname: 'fake bot' }
          : { message_id: nextMessageId }
      const response = options.failCalls
        ? { status: 'failed', retcode: 1404, data: null, message: 'group not found', echo: call.echo }
        : { status: 'ok', retcode: 0, data: answer, echo: call.echo }
      socket.send(JSON.stringify(response))
    })
    socket.send(
      JSON.stringify({
        time: now(),
        self_id: selfId,
        post_type: 'meta_event',
        meta_event_type: 'lifecycle',
        sub_type: 'connect',
      }),
    )
  }

  const listen = async () => {
    server = new WebSocketServer({
      host: '127.0.0.1',
      port,
      verifyClient: (info, done) => {
        const expected = options.accessToken ? `Bearer ${options.accessToken}` : undefined
        if (expected && info.req.headers.authorization !== expected) done(false, 401, 'Unauthorized')
        else done(true)
      },
    })
    server.on('connection', attach)
    await new Promise<void>((resolve) => server?.once('listening', () => resolve()))
    port = (server.address() as AddressInfo).port
  }

  let dialling = true
  const dial = async () => {
    if (!options.reverseUrl || !dialling) return
    const socket = new WebSocket(options.reverseUrl, {
      headers: {
        'X-Self-ID': String(selfId),
        'X-Client-Role': 'Universal',
        ...(options.accessToken ? { Authorization: `Bearer ${options.accessToken}` } : {}),
      },
    })
    socket.on('open', () => attach(socket))
    socket.on('error', () => {})
    await new Promise<void>((resolve) => {
      socket.once('open', () => resolve())
      socket.once('close', () => resolve())
    })
  }

  if (options.reverseUrl) await dial()
  else await listen()

  const broadcast = (frame: unknown) => {
    const text = JSON.stringify(frame)
    for (const socket of sockets) socket.send(text)
  }

  const kill = async () => {
    dialling = false
    for (const socket of sockets) socket.terminate()
    sockets.clear()
    if (server) await new Promise<void>((resolve) => server?.close(() => resolve()))
    server = undefined
  }

  return {
    selfId,
    calls,
    sentIds,
    get url() {
      return `ws://127.0.0.1:${port}`
    },
    sendGroupMessage(message) {
      nextMessageId += 1
      broadcast({
        time: now(),
        self_id: selfId,
        post_type: 'message',
        message_type: 'group',
        sub_type: 'normal',
        message_id: nextMessageId,
        group_id: message.groupId,
        user_id: message.userId,
        message: message.message,
        raw_message: typeof message.message === 'string' ? message.message : '',
        font: 0,
        sender: {
          user_id: message.userId,
          nickname: message.nickname ?? `user${message.userId}`,
          card: message.card ?? '',
          role: message.role ?? 'member',
        },
      })
      return nextMessageId
    },
    sendPrivateMessage(message) {
      nextMessageId += 1
      broadcast({
        time: now(),
        self_id: selfId,
        post_type: 'message',
        message_type: 'private',
        sub_type: 'friend',
        message_id: nextMessageId,
        user_id: message.userId,
        message: [{ type: 'text', data: { text: message.text } }],
        raw_message: message.text,
        font: 0,
        sender: { user_id: message.userId, nickname: message.nickname ?? `user${message.userId}` },
      })
      return nextMessageId
    },
    sendRaw: (frame) => {
      for (const socket of sockets) socket.send(frame)
    },
    connectedCount: () => sockets.size,
    kill,
    async restart() {
      dialling = true
      if (options.reverseUrl) await dial()
      else await listen()
    },
    close: kill,
  }
}

function now(): number {
  return Math.floor(Date.now() / 1000)
}
