/**
 * `charpipe doctor`'s look at each connector: a forward OneBot link is dialled with its token and
 * asked `get_login_info` (which account the bot is); a Twitch channel is joined (anonymously when no
 * token is set); a Bilibili room is looked up (live or offline) and its danmaku server logged into with
 * a fresh token (anonymously without a cookie). A reverse OneBot link is dialled by the implementation, so only the running server
 * can tell (GET /api/connectors). Each check has its own deadline; secrets never reach the detail.
 */
import WebSocket from 'ws'
import type {
  BilibiliConnectorConfig,
  CharpipeConfig,
  OnebotConnectorConfig,
  TwitchConnectorConfig,
} from '../config/schema.js'
import { redactText } from '../shared/redact.js'
import { bilibiliDanmakuUrl, createBilibiliApi, parseBilibiliCookie } from './bilibili/create-bilibili-api.js'
import { DanmakuOperation, decodeDanmakuFrame, encodeAuthPacket } from './bilibili/danmaku-packet.js'
import { connectorFrameBytes } from './keep-socket-connected.js'
import { createOnebotLink } from './onebot/create-onebot-link.js'
import { twitchChatUrl } from './twitch/create-twitch-connector.js'
import { parseIrcLine } from './twitch/parse-irc-line.js'

export interface ConnectorCheck {
  name: string
  ok: boolean
  detail: string
}

export async function checkConnectors(config: CharpipeConfig, timeoutMs = 10_000): Promise<ConnectorCheck[]> {
  const checks: Promise<ConnectorCheck>[] = [
    ...config.connectors.onebot.map((connector) => checkOnebot(connector, timeoutMs)),
    ...config.connectors.twitch.map((connector) => checkTwitch(connector, timeoutMs)),
    ...config.connectors.bilibili.map((connector) => checkBilibili(connector, timeoutMs)),
  ]
  return Promise.all(checks)
}

async function checkOnebot(connector: OnebotConnectorConfig, timeoutMs: number): Promise<ConnectorCheck> {
  const name = `OneBot ${connector.name}`
  if (connector.listen !== '')
    return {
      name,
      ok: true,
      detail: `reverse WebSocket: the implementation connects to ${connector.listen} of the running server (its state: GET /api/connectors)`,
    }
  const socket = new WebSocket(connector.url, {
    headers: connector.access_token ? { Authorization: `Bearer ${connector.access_token}` } : undefined,
    ...socketOptions(timeoutMs),
  })
  try {
    await opened(socket, timeoutMs)
    const link = createOnebotLink({
      send: (text) => socket.send(text),
      onEvent: () => {},
      callTimeoutMs: timeoutMs,
    })
    socket.on('message', (data) => link.receive(data.toString()))
    const response = await Promise.race([link.call('get_login_info', {}), closed(socket)])
    const info = response.data as { user_id?: unknown; nickname?: unknown } | null
    return {
      name,
      ok: true,
      detail: `${connector.url} answers: logged in as ${info?.nickname ?? '?'} (${info?.user_id ?? '?'})`,
    }
  } catch (error) {
    return {
      name,
      ok: false,
      detail: `${connector.url}: ${redactText((error as Error).message, [connector.access_token].filter(Boolean))}`,
    }
  } finally {
    socket.terminate()
  }
}

async function checkTwitch(connector: TwitchConnectorConfig, timeoutMs: number): Promise<ConnectorCheck> {
  const name = `Twitch ${connector.name}`
  const url = connector.url || twitchChatUrl
  const token = connector.oauth_token.replace(/^oauth:/, '')
  const socket = new WebSocket(url, socketOptions(timeoutMs))
  try {
    await opened(socket, timeoutMs)
    const login = token !== '' ? connector.username.toLowerCase() : 'justinfan54321'
    const joined = new Promise<string>((resolve, reject) => {
      socket.on('message', (data) => {
        for (const line of data.toString().split('\r\n')) {
          const message = parseIrcLine(line)
          if (message?.command === 'NOTICE' && /authentication failed/i.test(message.params.at(-1) ?? ''))
            reject(new Error(`the login was refused: ${message.params.at(-1)}`))
          if (message?.command === 'JOIN') resolve(message.params[0] ?? '')
        }
      })
      closed(socket).catch(reject)
    })
    if (token !== '') socket.send(`PASS oauth:${token}\r\n`)
    socket.send(`NICK ${login}\r\nJOIN #${connector.channel}\r\n`)
    const channel = await withDeadline(joined, timeoutMs, 'no JOIN confirmation')
    return {
      name,
      ok: true,
      detail: `joined ${channel} ${token !== '' ? `as ${login}` : 'read-only (anonymous)'}`,
    }
  } catch (error) {
    return {
      name,
      ok: false,
      detail: `${url}: ${redactText((error as Error).message, [token].filter(Boolean))}`,
    }
  } finally {
    socket.terminate()
  }
}

async function checkBilibili(connector: BilibiliConnectorConfig, timeoutMs: number): Promise<ConnectorCheck> {
  const name = `Bilibili ${connector.name}`
  const cookie = parseBilibiliCookie(connector.cookie)
  const secrets = [cookie.header, cookie.csrf].filter(Boolean)
  const api = createBilibiliApi({ apiUrl: connector.api_url, cookie, timeoutMs })
  let socket: WebSocket | undefined
  try {
    const room = await api.resolveRoom(connector.room_id)
    const server = await api
      .getDanmakuServer(room.roomId)
      .catch(() => ({ url: bilibiliDanmakuUrl, token: '' }))
    const url = connector.url || server.url
    socket = new WebSocket(url, socketOptions(timeoutMs))
    const current = socket
    await opened(current, timeoutMs)
    const answered = new Promise<number>((resolve, reject) => {
      current.on('message', (data: Buffer) => {
        try {
          const reply = decodeDanmakuFrame(data).find(
            (packet) => packet.operation === DanmakuOperation.authReply,
          )
          if (reply) resolve(Number((JSON.parse(reply.body.toString()) as { code?: unknown }).code))
        } catch (error) {
          reject(error)
        }
      })
      closed(current).catch(reject)
    })
    current.send(
      encodeAuthPacket({
        roomId: room.roomId,
        uid: server.token !== '' ? cookie.uid : 0,
        token: server.token,
        buvid: cookie.buvid,
      }),
    )
    const code = await withDeadline(answered, timeoutMs, 'no answer to the login')
    if (code !== 0) throw new Error(`the danmaku server refused the login (code ${code})`)
    const who =
      cookie.uid !== 0 && server.token !== '' ? `as uid ${cookie.uid}` : 'anonymously (names masked)'
    return {
      name,
      ok: true,
      detail: `room ${room.roomId} ${room.live ? 'is live' : 'is offline (not streaming now)'}; danmaku read ${who}`,
    }
  } catch (error) {
    return {
      name,
      ok: false,
      detail: `room ${connector.room_id}: ${redactText((error as Error).message, secrets)}`,
    }
  } finally {
    socket?.terminate()
  }
}

/** A check reads frames up to the bound the running connectors use. */
function socketOptions(timeoutMs: number): WebSocket.ClientOptions {
  return { handshakeTimeout: timeoutMs, maxPayload: connectorFrameBytes }
}

/** The last error a socket reported, for `closed` to name (`ws` reports it before it closes). */
const lastErrors = new WeakMap<WebSocket, Error & { code?: string }>()

function opened(socket: WebSocket, timeoutMs: number): Promise<void> {
  return withDeadline(
    new Promise<void>((resolve, reject) => {
      socket.once('open', () => resolve())
      socket.once('unexpected-response', (_request, response) =>
        reject(new Error(`the WebSocket upgrade was answered with HTTP ${response.statusCode}`)),
      )
      // Kept for the socket's life: a later error (a frame past the bound) must not go unheard.
      socket.on('error', (error: Error & { code?: string }) => {
        lastErrors.set(socket, error)
        reject(new Error(error.code ?? error.message))
      })
    }),
    timeoutMs,
    'no connection',
  )
}

/** Rejects once the connection has closed, naming why when the socket said. */
function closed(socket: WebSocket): Promise<never> {
  return new Promise<never>((_resolve, reject) => {
    socket.once('close', (code: number) => {
      const error = lastErrors.get(socket)
      reject(
        new Error(
          error
            ? `the connection ended: ${error.message} (code ${code})`
            : `the server closed the connection (code ${code})`,
        ),
      )
    })
  })
}

function withDeadline<T>(promise: Promise<T>, timeoutMs: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const deadline = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} within ${timeoutMs / 1000} s`)), timeoutMs)
  })
  return Promise.race([promise, deadline]).finally(() => clearTimeout(timer))
}
