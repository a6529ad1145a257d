/**
 * A Bilibili live room for tests: one HTTP server that answers the live API's `room_init`,
 * `getDanmuInfo` (a new token each time, only to a request WBI-signed with the keys its `nav`
 * names, else code -352 as Bilibili does) and `msg/send` (checking the cookie's `bili_jct`), and
 * takes the danmaku WebSocket on `/sub`, speaking the real packet format: it checks the auth packet
 * (operation 7; a token must be one it handed out), answers with operation 8, answers heartbeats
 * with operation 3, and sends commands plain (several packets in one frame), zlib- or
 * brotli-compressed. It can be killed and started again on the same port.
 */
import { createHash } from 'node:crypto'
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import type WebSocket from 'ws'
import { WebSocketServer } from 'ws'
import {
  DanmakuOperation,
  DanmakuProtocol,
  decodeDanmakuFrame,
  encodeCompressedPackets,
  encodeDanmakuPacket,
} from '../../src/connectors/bilibili/danmaku-packet.js'
import { wbiMixinKey } from '../../src/connectors/bilibili/sign-wbi.js'

export interface AuthBody {
  uid: number
  roomid: number
  protover: number
  key?: string
  buvid?: string
}

export interface FakeBilibiliLive {
  /** The danmaku WebSocket address (`ws://…/sub`). */
  url: string
  /** The live HTTP API's base. */
  apiUrl: string
  roomId: number
  /** Tokens handed out by getDanmuInfo, in order. */
  tokens: string[]
  auths: AuthBody[]
  heartbeats: number
  /** The `msg` of each accepted `msg/send`, in order. */
  sent: string[]
  /** Every `msg/send` form, accepted or not. */
  sendRequests: URLSearchParams[]
  live: boolean
  /** How many of the next logins to refuse (code -101, as for a stale token). */
  refuseLogins: number
  /** The code `msg/send` answers (0: sent; 1003: a ban; 10030: too fast). */
  sendCode: number
  /** The WBI keys `nav` names now (32 hex characters each). */
  wbiKeys: { imgKey: string; subKey: string }
  navRequests: number
  /** `getDanmuInfo` requests refused for a missing or wrong signature. */
  refusedSignatures: number
  /** The `wts` of each signed `getDanmuInfo` request, in order. */
  signedAt: number[]
  /** Sends commands to every authenticated client, in one frame. */
  send(commands: unknown[], protocol?: 0 | 2 | 3): void
  /** Sends one binary frame as it is (a broken one, a bomb) to every authenticated client. */
  sendRaw(frame: Buffer): void
  connectedCount(): number
  kill(): Promise<void>
  restart(): Promise<void>
  close(): Promise<void>
}

export async function startFakeBilibiliLive(options: {
  roomId: number
  shortId?: number
  ownerUid: number
  csrf?: string
}): Promise<FakeBilibiliLive> {
  const sockets = new Set<WebSocket>()
  let server: Server
  let socketServer: WebSocketServer
  let port = 0

  const fake: FakeBilibiliLive = {
    url: '',
    apiUrl: '',
    roomId: options.roomId,
    tokens: [],
    auths: [],
    heartbeats: 0,
    sent: [],
    sendRequests: [],
    live: true,
    refuseLogins: 0,
    sendCode: 0,
    wbiKeys: { imgKey: '7cd084941338484aae1ad9425b84077c', subKey: '4932caff0ff746eab6f01bf08b70ac45' },
    navRequests: 0,
    refusedSignatures: 0,
    signedAt: [],
    send(commands, protocol = 0) {
      const packets = commands.map((command) => ({
        protocol: DanmakuProtocol.json,
        operation: DanmakuOperation.command,
        body: Buffer.from(JSON.stringify(command)),
      }))
      const frame =
        protocol === 0
          ? Buffer.concat(packets.map(encodeDanmakuPacket))
          : encodeCompressedPackets(packets, protocol)
      for (const socket of sockets) socket.send(frame)
    },
    sendRaw(frame) {
      for (const socket of sockets) socket.send(frame)
    },
    connectedCount: () => sockets.size,
    async kill() {
      for (const socket of socketServer.clients) socket.terminate()
      sockets.clear()
      await new Promise<void>((resolve) => socketServer.close(() => resolve()))
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
    async restart() {
      await listen()
    },
    async close() {
      await fake.kill()
    },
  }

  const answer = (response: ServerResponse, body: unknown) => {
    response.writeHead(200, { 'Content-Type': 'application/json' })
    response.end(JSON.stringify(body))
  }

  const handleHttp = async (request: IncomingMessage, response: ServerResponse) => {
    const url = new URL(request.url ?? '/', 'http://fake')
    const id = Number(url.searchParams.get('id'))
    if (url.pathname === '/room/v1/Room/room_init') {
      if (id !== options.roomId && id !== options.shortId)
        return answer(response, { code: 60004, msg: '直播间不存在', message: '直播间不存在', data: {} })
      return answer(response, {
        code: 0,
        msg: 'ok',
        message: 'ok',
        data: {
          room_id: options.roomId,
          short_id: options.shortId ?? 0,
          uid: options.ownerUid,
          live_status: fake.live ? 1 : 0,
        },
      })
    }
    if (url.pathname === '/x/web-interface/nav') {
      fake.navRequests += 1
      // A guest gets -101 and the keys all the same, as from Bilibili.
      const loggedIn = (request.headers.cookie ?? '').includes('SESSDATA=')
      return answer(response, {
        code: loggedIn ? 0 : -101,
        message: loggedIn ? '0' : '账号未登录',
        ttl: 1,
        data: {
          isLogin: loggedIn,
          wbi_img: {
            img_url: `https://i0.hdslb.com/bfs/wbi/${fake.wbiKeys.imgKey}.png`,
            sub_url: `https://i0.hdslb.com/bfs/wbi/${fake.wbiKeys.subKey}.png`,
          },
        },
      })
    }
    if (url.pathname === '/xlive/web-room/v1/index/getDanmuInfo') {
      if (!isSignedWithCurrentKeys(url.searchParams)) {
        fake.refusedSignatures += 1
        return answer(response, { code: -352, message: '-352', ttl: 1, data: { v_voucher: 'voucher' } })
      }
      fake.signedAt.push(Number(url.searchParams.get('wts')))
      const token = `token-${fake.tokens.length + 1}`
      fake.tokens.push(token)
      return answer(response, {
        code: 0,
        message: '0',
        ttl: 1,
        data: {
          group: 'live',
          business_id: 0,
          refresh_row_factor: 0.125,
          refresh_rate: 100,
          max_delay: 5000,
          token,
          host_list: [{ host: '127.0.0.1', port: port, wss_port: port, ws_port: port }],
        },
      })
    }
    if (url.pathname === '/msg/send' && request.method === 'POST') {
      const chunks: Buffer[] = []
      for await (const chunk of request) chunks.push(chunk as Buffer)
      const form = new URLSearchParams(Buffer.concat(chunks).toString())
      fake.sendRequests.push(form)
      const cookie = request.headers.cookie ?? ''
      if (!options.csrf || form.get('csrf') !== options.csrf || !cookie.includes(`bili_jct=${options.csrf}`))
        return answer(response, { code: -111, message: 'csrf 校验失败', msg: 'csrf 校验失败', data: [] })
      if (fake.sendCode !== 0)
        return answer(response, {
          code: fake.sendCode,
          message: fake.sendCode === 1003 ? '你被禁言啦' : '您发送弹幕的频率过快',
          msg: '',
          data: [],
        })
      fake.sent.push(form.get('msg') ?? '')
      return answer(response, { code: 0, data: { mode_info: {}, dm_v2: '' }, message: '', msg: '' })
    }
    response.writeHead(404).end()
  }

  /** The check Bilibili makes: md5 of the sorted query without `w_rid`, then the mixin key. */
  const isSignedWithCurrentKeys = (params: URLSearchParams) => {
    const signature = params.get('w_rid')
    if (!signature || !params.get('wts')) return false
    const query = [...params.entries()]
      .filter(([name]) => name !== 'w_rid')
      .sort(([left], [right]) => (left < right ? -1 : left > right ? 1 : 0))
      .map(([name, value]) => `${encodeURIComponent(name)}=${encodeURIComponent(value)}`)
      .join('&')
    const expected = createHash('md5')
      .update(query + wbiMixinKey(fake.wbiKeys))
      .digest('hex')
    return signature === expected
  }

  const handleSocket = (socket: WebSocket) => {
    socket.on('close', () => sockets.delete(socket))
    socket.on('message', (data: Buffer) => {
      for (const packet of decodeDanmakuFrame(data)) {
        if (packet.operation === DanmakuOperation.auth) {
          const auth = JSON.parse(packet.body.toString()) as AuthBody
          fake.auths.push(auth)
          const tokenOk = auth.key === undefined ? auth.uid === 0 : fake.tokens.includes(auth.key)
          let code = auth.roomid === options.roomId && tokenOk ? 0 : -101
          if (fake.refuseLogins > 0) {
            fake.refuseLogins -= 1
            code = -101
          }
          socket.send(
            encodeDanmakuPacket({
              protocol: DanmakuProtocol.number,
              operation: DanmakuOperation.authReply,
              body: Buffer.from(JSON.stringify({ code })),
            }),
          )
          if (code === 0) sockets.add(socket)
          else socket.close()
        }
        if (packet.operation === DanmakuOperation.heartbeat) {
          fake.heartbeats += 1
          const popularity = Buffer.alloc(4)
          popularity.writeUInt32BE(1)
          socket.send(
            encodeDanmakuPacket({
              protocol: DanmakuProtocol.number,
              operation: DanmakuOperation.heartbeatReply,
              body: popularity,
            }),
          )
        }
      }
    })
  }

  async function listen() {
    server = createServer((request, response) => void handleHttp(request, response))
    socketServer = new WebSocketServer({ server, path: '/sub' })
    socketServer.on('connection', handleSocket)
    await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', () => resolve()))
    port = (server.address() as AddressInfo).port
    fake.url = `ws://127.0.0.1:${port}/sub`
    fake.apiUrl = `http://127.0.0.1:${port}`
  }

  await listen()
  return fake
}
