/**
 * The battery's reader that never reads, made real: the client stops reading at the TCP level
 * (a WebSocket paused, an HTTP stream's body left unread) while the mock model server
 * streams a reply far longer than the server's bound for what may wait for one WebSocket
 * (`server.ws_max_buffered_bytes`) and than the kernel's socket buffers take. What each door does
 * with such a reader is observed here and judged by the battery.
 */
import { readFileSync } from 'node:fs'
import { vi } from 'vitest'
import type { Door } from '../../src/admission/index.js'
import type { MockReply } from '../../src/testing/index.js'
import type { TestSocket } from '../server/websocket-client.js'
import type { BatteryWorld } from './door-drivers.js'
import { openPausedStream, type PausedStream } from './open-paused-stream.js'

/** Words in a slow reader's text: the mock model answers them with `longStory` on the doors below. */
export const longStoryAsk = 'tell me a long story'

/** The most bytes the kernel holds for one loopback connection whose reader has stopped (sysctl, Linux). */
function readKernelSocketBytes(): number {
  const third = (path: string, fallback: number) => {
    try {
      return Number(readFileSync(path, 'utf8').trim().split(/\s+/)[2]) || fallback
    } catch {
      return fallback
    }
  }
  const second = (path: string, fallback: number) => {
    try {
      return Number(readFileSync(path, 'utf8').trim().split(/\s+/)[1]) || fallback
    } catch {
      return fallback
    }
  }
  // The sender's buffer grows up to tcp_wmem's maximum; a receiver that never reads keeps its
  // starting buffer (tcp_rmem's default), which grows only as it reads.
  return third('/proc/sys/net/ipv4/tcp_wmem', 4_194_304) + second('/proc/sys/net/ipv4/tcp_rmem', 131_072)
}

/**
 * A reply longer than the kernel's socket buffers can hold twice over (about 8 MB of UTF-8 with
 * Linux's defaults), so the server's bound, not the buffers' size, is what a reader that stopped
 * meets, on any machine, before the turn ends. A shorter one (2.9 MB) sometimes fitted whole in
 * the buffers: the turn ended before the server saw that its reader had stopped. Long sentences in
 * large chunks: the same bytes in few events (a sentence of four characters made one event per
 * 12 bytes), so the server spends its time moving bytes, not making events.
 */
const longStoryText = `${'慢'.repeat(999)}。`.repeat(Math.ceil((2 * readKernelSocketBytes()) / 3 / 1000))

export const longStory: MockReply = { text: longStoryText, chunkSize: 4000 }

/** The bound of the battery's config, small so a reader passes it quickly. */
export const batteryMaxBufferedBytes = 65_536

/**
 * Doors whose answer streams to the reader, and how the reader's turn is stored. Over a WebSocket
 * the reader's own turns are cut at the bound (stored as interrupted); an audience turn is the
 * session's, not the reader's, and runs on as when a follower leaves (`ws_open` and `ws_follow`
 * make their reader a follower of a session where an audience line starts one). An HTTP stream is
 * dropped at the same bound and its turn cut, as when its client hangs up. The other doors answer
 * nothing that streams (an acknowledgement, a page of history), so their reader is only left
 * unread.
 */
export const slowReaderDoors: ReadonlyMap<Door, 'interrupted' | 'whole'> = new Map([
  ['ws_user_input', 'interrupted'],
  ['ws_preflight', 'interrupted'],
  ['ws_audience', 'whole'],
  ['ws_open', 'whole'],
  ['ws_follow', 'whole'],
  ['http_chat', 'interrupted'],
  ['v1', 'interrupted'],
])

/** What happened to a reader that never read. */
export interface SlowReaderOutcome {
  /** A WebSocket's end as its client saw it once it read again: the close code and reason. */
  closed?: { code: number; reason: string }
  /** What the server held for the socket when it let go, and why, from its log line. */
  heldBytesAtClose?: number
  loggedReason?: string
  /** The socket is gone from the server's connection count. */
  letGo?: boolean
  /** Another client's turn ran to its end while the reader held its connection. */
  servedMeanwhile: boolean
  /** How the reader's turn was stored once it ended. */
  stored: 'interrupted' | 'whole' | 'none'
  /** The reader, reading at last, got the reply to its last event (a dropped stream does not). */
  readToTheEnd?: boolean
}

export const notReadingReason = (bound: number) =>
  `the client is not reading: more than ${bound} bytes waiting`

const isOverflowLine = (line: string) => line.includes('closing a websocket: the client is not reading')
const isStreamOverflowLine = (line: string) => line.includes('closing a stream: the client is not reading')

async function readConnections(world: BatteryWorld): Promise<number> {
  const text = await fetch(`${world.url}/metrics`, {
    headers: { authorization: `Bearer ${world.adminToken}` },
  }).then((response) => response.text())
  return Number(text.match(/^charpipe_websocket_connections (\S+)$/m)?.[1])
}

/** A turn of another client over `/api/chat`, read to its `llm_done` (on a socket of its own). */
async function serveAnotherClient(world: BatteryWorld, marker: string): Promise<boolean> {
  const answer = await openPausedStream({
    url: `${world.url}/api/chat`,
    headers: {
      authorization: `Bearer ${world.chatToken}`,
      'content-type': 'application/json',
      'x-forwarded-for': world.nextAddress(),
    },
    body: JSON.stringify({ session: `s-${marker}-meanwhile`, text: `${marker}-meanwhile hello` }),
  })
  return answer.status === 200 && (await answer.readTheRest()).includes('event: llm_done')
}

/** Who the reader is: the session it reads, as it names it, and the token it holds. */
export interface Reader {
  session: string
  marker: string
  bearer: string
  /** The character its turns are held with; absent: the default one. */
  character?: string
}

/** Once the session's turn has ended: how its last reply was stored, read as the reader would. */
async function storedAs(world: BatteryWorld, reader: Reader): Promise<SlowReaderOutcome['stored']> {
  const query = reader.character ? `?character=${encodeURIComponent(reader.character)}` : ''
  const url = `${world.url}/api/sessions/${encodeURIComponent(reader.session)}/messages${query}`
  let stored: SlowReaderOutcome['stored'] = 'none'
  await vi.waitFor(
    async () => {
      const response = await fetch(url, { headers: { authorization: `Bearer ${reader.bearer}` } })
      const { messages } = (await response.json()) as {
        messages: { role: string; interrupted?: boolean }[]
      }
      const reply = messages.findLast((message) => message.role === 'assistant')
      if (!reply) throw new Error(`${reader.session} has no stored reply yet`)
      stored = reply.interrupted ? 'interrupted' : 'whole'
    },
    { timeout: 30_000, interval: 50 },
  )
  return stored
}

/** An audience line asking for the long story, posted into the reader's session as the reader. */
async function startAudienceTurn(world: BatteryWorld, reader: Reader): Promise<void> {
  const response = await fetch(`${world.url}/api/sessions/${encodeURIComponent(reader.session)}/audience`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${reader.bearer}`,
      'content-type': 'application/json',
      'x-forwarded-for': world.nextAddress(),
    },
    body: JSON.stringify({
      messages: [
        {
          id: `${reader.marker}-audience`,
          speaker: { id: 'viewer-1' },
          text: `${reader.marker}-audience ${longStoryAsk}`,
        },
      ],
    }),
  })
  if (response.status !== 202) throw new Error(`${reader.marker}: audience answered ${response.status}`)
}

/**
 * A WebSocket client that stops reading, until the server closes the socket at its bound. A reader
 * of its own turns stops, then sends `frames`; a follower (`follows`) sends them (an `open`) while
 * reading, stops once the session is open, and a turn the server starts there by itself (an
 * audience line) streams to it. Then the client reads again, to see the close frame if the server's
 * cut (a second after the close) has not come first.
 */
export async function readNeverOverWebSocket(
  world: BatteryWorld,
  socket: TestSocket,
  reader: Reader,
  frames: string[],
  follows = false,
): Promise<SlowReaderOutcome> {
  const connections = await readConnections(world)
  const linesBefore = world.logLines.length
  const closed = new Promise<{ code: number; reason: string }>((resolve) => {
    socket.socket.once('close', (code, reason) => resolve({ code, reason: reason.toString() }))
  })
  if (follows) {
    const from = socket.frames.length
    for (const frame of frames) socket.sendRaw(frame)
    await socket.waitFor((frame) => frame.type === 'opened' && frame.session === reader.session, from)
    socket.socket.pause()
    await startAudienceTurn(world, reader)
  } else {
    socket.socket.pause()
    for (const frame of frames) socket.sendRaw(frame)
  }
  const servedMeanwhile = await serveAnotherClient(world, reader.marker)
  const overflow = JSON.parse(await world.log.waitFor({ matches: isOverflowLine, from: linesBefore })) as {
    bufferedBytes?: number
    msg: string
  }
  socket.socket.resume()
  const outcome = await closed
  let letGo = false
  await vi.waitFor(
    async () => {
      letGo = (await readConnections(world)) === connections - 1
      if (!letGo) throw new Error(`${reader.marker}: the socket is still counted`)
    },
    { timeout: 30_000, interval: 50 },
  )
  return {
    closed: outcome,
    ...(overflow.bufferedBytes !== undefined ? { heldBytesAtClose: overflow.bufferedBytes } : {}),
    loggedReason: overflow.msg.replace('closing a websocket: ', ''),
    letGo,
    servedMeanwhile,
    stored: await storedAs(world, reader),
  }
}

/**
 * An HTTP stream whose socket is paused once its answer's head arrives (`open`), until the server
 * drops the stream at its bound (seen by its log line, when it is written); then the reader reads
 * what is left, and `endsAReply` tells whether that holds the reply's end.
 */
export async function readNeverOverStream(
  world: BatteryWorld,
  reader: Reader,
  open: () => Promise<PausedStream>,
  endsAReply: (text: string) => boolean,
): Promise<SlowReaderOutcome> {
  const linesBefore = world.logLines.length
  const answer = await open()
  if (answer.status !== 200) throw new Error(`${answer.status} ${(await answer.readTheRest()).slice(0, 300)}`)
  const servedMeanwhile = await serveAnotherClient(world, reader.marker)
  const overflow = JSON.parse(
    await world.log.waitFor({ matches: isStreamOverflowLine, from: linesBefore }),
  ) as { bufferedBytes?: number; msg: string }
  return {
    ...(overflow.bufferedBytes !== undefined ? { heldBytesAtClose: overflow.bufferedBytes } : {}),
    loggedReason: overflow.msg.replace('closing a stream: ', ''),
    servedMeanwhile,
    stored: await storedAs(world, reader),
    readToTheEnd: endsAReply(await answer.readTheRest()),
  }
}
