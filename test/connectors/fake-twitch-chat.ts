/**
 * A Twitch chat server over WebSocket, as Twitch's IRC documentation describes it: it takes
 * `CAP REQ`, `PASS`, `NICK` and `JOIN`, welcomes with `001`, checks the token, sends `PRIVMSG` lines
 * with tags (badges, bits, first-msg, reply-parent-*), `PING` and `RECONNECT`, and records every
 * line a client writes. It can be stopped and started again on the same port.
 */
import type { AddressInfo } from 'node:net'
import type WebSocket from 'ws'
import { WebSocketServer } from 'ws'

export interface ChatLine {
  tags?: Record<string, string>
  login: string
  text: string
}

export interface FakeTwitchChat {
  url: string
  /** Every line clients wrote, in order. */
  received: string[]
  /** Logins that joined, in order. */
  joins: string[]
  say(line: ChatLine): void
  /** Sends text as it is (a broken line, several lines) to every logged-in client. */
  sendRaw(text: string): void
  ping(): void
  /** Asks clients to reconnect (as Twitch does before maintenance). */
  requestReconnect(): void
  connectedCount(): number
  close(): Promise<void>
}

export async function startFakeTwitchChat(options: {
  channel: string
  validToken?: string
}): Promise<FakeTwitchChat> {
  const received: string[] = []
  const joins: string[] = []
  const sockets = new Set<WebSocket>()
  const server = new WebSocketServer({ host: '127.0.0.1', port: 0 })
  await new Promise<void>((resolve) => server.once('listening', () => resolve()))
  const port = (server.address() as AddressInfo).port

  server.on('connection', (socket) => {
    let nick = ''
    let pass = ''
    socket.on('close', () => sockets.delete(socket))
    socket.on('message', (data) => {
      for (const line of data.toString().split('\r\n').filter(Boolean)) {
        received.push(line)
        const [command, ...rest] = line.split(' ')
        if (command === 'PASS') pass = rest.join(' ')
        if (command === 'NICK') {
          nick = rest[0] ?? ''
          const anonymous = /^justinfan\d+$/.test(nick) && pass === ''
          if (!anonymous && pass !== `oauth:${options.validToken}`) {
            socket.send(':tmi.twitch.tv NOTICE * :Login authentication failed\r\n')
            socket.close()
            return
          }
          sockets.add(socket)
          socket.send(`:tmi.twitch.tv 001 ${nick} :Welcome, GLHF!\r\n`)
        }
        if (command === 'JOIN') {
          joins.push(nick)
          socket.send(`:${nick}!${nick}@${nick}.tmi.twitch.tv JOIN #${options.channel}\r\n`)
        }
      }
    })
  })

  const send = (text: string) => {
    for (const socket of sockets) socket.send(text)
  }

  return {
    url: `ws://127.0.0.1:${port}`,
    received,
    joins,
    say(line) {
      const tags = line.tags
        ? `@${Object.entries(line.tags)
            .map(
              ([key, value]) =>
                `${key}=${value.replaceAll('\\', '\\\\').replaceAll(';', '\\:').replaceAll(' ', '\\s')}`,
            )
            .join(';')} `
        : ''
      send(
        `${tags}:${line.login}!${line.login}@${line.login}.tmi.twitch.tv PRIVMSG #${options.channel} :${line.text}\r\n`,
      )
    },
    sendRaw: send,
    ping: () => send('PING :tmi.twitch.tv\r\n'),
    requestReconnect: () => send(':tmi.twitch.tv RECONNECT\r\n'),
    connectedCount: () => sockets.size,
    async close() {
      for (const socket of sockets) socket.terminate()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}
