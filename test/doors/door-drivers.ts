/**
 * One driver per door of the admission (src/admission/doors.ts): each hands its door a hostile
 * input in the door's own wire form and returns what happened: the reason of every refusal the
 * caller was told, and how many deliveries it made. WebSocket doors speak frames over a real
 * socket, HTTP doors real requests (`/v1` through the official `openai` SDK), connector doors a
 * fake OneBot implementation's events.
 */
import OpenAI from 'openai'
import type { Door } from '../../src/admission/index.js'
import type { FakeOnebot } from '../connectors/fake-onebot-implementation.js'
import { openTestSocket, type TestSocket } from '../server/websocket-client.js'
import {
  connectorSession,
  type HostileInput,
  type HostilePayload,
  payloadFor,
  withRawKeys,
} from './hostile-inputs.js'
import { openPausedStream } from './open-paused-stream.js'
import { readNeverOverStream, readNeverOverWebSocket, type SlowReaderOutcome } from './slow-reader.js'
import type { LogLineWatcher } from './watch-log-lines.js'

export interface BatteryWorld {
  url: string
  chatToken: string
  adminToken: string
  /** A named client that follows the connector `qq`. */
  followerToken: string
  /** The OneBot implementation of `qq` (group 123, private chats). */
  onebot: FakeOnebot
  /** The OneBot implementation of `qqflood` (group 789, private chats; 2 turns a minute). */
  onebotFlood: FakeOnebot
  /** A fresh client address for each cell (sent as X-Forwarded-For by a trusted proxy). */
  nextAddress(): string
  /** A fresh chat member for each cell (their private chat is the cell's own session). */
  nextUser(): number
  /** Closed when the battery ends (slow readers, sockets). */
  leftOpen: (() => void)[]
  /** The server's log, as it writes it. */
  logLines: string[]
  /** Waits for a log line as it is written. */
  log: LogLineWatcher
  /** `server.ws_max_buffered_bytes` in the battery's config. */
  maxBufferedBytes: number
}

export interface DoorOutcome {
  /** The reasons the caller was told (error frames, error bodies); connectors' are in the log. */
  reasons: string[]
  deliveries: number
  /** For a door whose answer streams: what happened to each reader that never read. */
  slowReaders?: SlowReaderOutcome[]
}

export type DoorDriver = (world: BatteryWorld, input: HostileInput, marker: string) => Promise<DoorOutcome>

const sentinel = '{"type":"battery-sentinel"}'

/**
 * Sends frames, then a sentinel; every error frame before the sentinel's is a refusal, and every
 * `audience_dropped` a drop told with its reason (audience messages are never refused for the
 * budget: the turns answering them are, and what cannot wait is dropped by the selector).
 */
async function sendFrames(socket: TestSocket, frames: string[]): Promise<string[]> {
  const from = socket.frames.length
  for (const frame of frames) socket.sendRaw(frame)
  socket.sendRaw(sentinel)
  await socket.waitFor(
    (frame) => frame.type === 'error' && String(frame.message).includes('battery-sentinel'),
    from,
  )
  return socket.frames.slice(from).flatMap((frame) => {
    if (frame.type === 'audience_dropped')
      return (frame.ids as string[]).map((id) => `audience message ${id} dropped: ${String(frame.reason)}`)
    if (frame.type !== 'error' || String(frame.message).includes('battery-sentinel')) return []
    return [String(frame.message ?? '')]
  })
}

function buildFrame(
  payload: HostilePayload,
  index: number,
  build: (payload: HostilePayload, index: number) => object,
) {
  if (payload.raw !== undefined) return payload.raw
  return withRawKeys(JSON.stringify(build(payload, index)), payload.rawKeys)
}

function audienceMessage(payload: HostilePayload, marker: string, index: number) {
  return {
    id: payload.id ?? `${marker}-${index}`,
    speaker: { id: 'viewer-1', ...(payload.role ? { role: payload.role } : {}) },
    text: `${payload.text} #${index}`,
    ...(payload.gift ? { gift: payload.gift } : {}),
  }
}

/**
 * A WebSocket door. Its slow reader sends the door's frames (and `slowReaderFinal`, a frame that
 * makes them answer, such as the final input after a preflight) and stops reading; for a door whose
 * answer is a turn's reply (`streams`) it is held until the server lets go of the socket
 * (slow-reader.ts).
 */
function webSocketDoor(
  build: (payload: HostilePayload, index: number, marker: string) => object,
  options: {
    token?: 'chat' | 'follower'
    /** Its answer streams: the reader's own turns, or those of a session it follows. */
    streams?: 'own_turns' | 'as_follower'
    slowReaderFinal?: (payload: HostilePayload) => object
  } = {},
): DoorDriver {
  return async (world, input, marker) => {
    const payload = payloadFor(input, marker)
    const bearer = options.token === 'follower' ? world.followerToken : world.chatToken
    const socket = await openTestSocket(`${world.url}/ws`, { authorization: `Bearer ${bearer}` })
    world.leftOpen.push(() => socket.socket.terminate())
    const frames = Array.from({ length: payload.times }, (_, index) =>
      buildFrame(payload, index, (each, at) => build(each, at, marker)),
    )
    if (input === 'slow_reader' && options.slowReaderFinal)
      frames.push(JSON.stringify(options.slowReaderFinal(payload)))
    if (input === 'slow_reader' && options.streams) {
      const reader = { session: payload.session, marker, bearer }
      const follows = options.streams === 'as_follower'
      const outcome = await readNeverOverWebSocket(world, socket, reader, frames, follows)
      const reasons = outcome.closed?.code === 1008 ? [outcome.closed.reason] : []
      return { reasons, deliveries: frames.length, slowReaders: [outcome] }
    }
    if (input === 'slow_reader') {
      // Nothing this door answers needs reading: the socket stops reading and is left to the bound.
      socket.socket.pause()
      for (const frame of frames) socket.sendRaw(frame)
      return { reasons: [], deliveries: frames.length }
    }
    return { reasons: await sendFrames(socket, frames), deliveries: frames.length }
  }
}

async function readReason(response: Response): Promise<string | undefined> {
  if (response.status < 400) {
    await response.body?.cancel()
    return undefined
  }
  const body = (await response.json().catch(() => ({}))) as { error?: { message?: string } }
  return body.error?.message ?? `HTTP ${response.status} without a reason`
}

/**
 * The reasons an answer tells: a refusal's, or each audience message an accepted request reports
 * dropped (202 `{accepted, dropped}`: as with frames, audience lines are never refused for the
 * budget; the turns answering them are charged, and what cannot wait is dropped by the selector).
 */
async function readReasons(response: Response): Promise<string[]> {
  if (response.status !== 202) {
    const reason = await readReason(response)
    return reason === undefined ? [] : [reason]
  }
  const body = (await response.json().catch(() => ({}))) as { dropped?: { id: string; reason: string }[] }
  return (body.dropped ?? []).map(({ id, reason }) => `audience message ${id} dropped: ${reason}`)
}

/**
 * An HTTP door. Its slow reader leaves the answer unread: a stream (`streams`) until the server
 * drops it, then reads what is left; any other answer until the battery ends.
 */
function httpDoor(
  method: 'GET' | 'POST',
  path: (payload: HostilePayload) => string,
  body: (payload: HostilePayload, marker: string, index: number) => object | undefined,
  { streams = false } = {},
): DoorDriver {
  return async (world, input, marker) => {
    const payload = payloadFor(input, marker)
    const address = world.nextAddress()
    const send = (index: number, signal: AbortSignal) => {
      const built = body(payload, marker, index)
      const text =
        payload.raw !== undefined
          ? payload.raw
          : built
            ? withRawKeys(JSON.stringify(built), payload.rawKeys)
            : undefined
      // A GET has no body to break: its malformed form is a session id that is no client's to name.
      const target =
        method === 'GET' && payload.raw !== undefined
          ? path({ ...payload, session: `~forged~${marker}` })
          : path(payload)
      return fetch(`${world.url}${target}`, {
        method,
        headers: {
          authorization: `Bearer ${world.chatToken}`,
          'content-type': 'application/json',
          'x-forwarded-for': address,
        },
        ...(method === 'POST' ? { body: text ?? '{}' } : {}),
        signal,
      })
    }
    if (input === 'slow_reader' && streams) {
      const reader = { session: payload.session, marker, bearer: world.chatToken }
      const outcome = await readNeverOverStream(
        world,
        reader,
        () =>
          openPausedStream({
            url: `${world.url}${path(payload)}`,
            headers: {
              authorization: `Bearer ${world.chatToken}`,
              'content-type': 'application/json',
              'x-forwarded-for': address,
            },
            body: JSON.stringify(body(payload, marker, 0)),
          }),
        (text) => text.includes('event: llm_done'),
      )
      return { reasons: [], deliveries: 1, slowReaders: [outcome] }
    }
    const reasons: string[] = []
    for (let index = 0; index < payload.times; index++) {
      const controller = new AbortController()
      const response = await send(index, controller.signal)
      if (input === 'slow_reader' && response.status < 400) {
        world.leftOpen.push(() => controller.abort())
        continue
      }
      reasons.push(...(await readReasons(response)))
    }
    return { reasons, deliveries: payload.times }
  }
}

const sessionPath = (suffix: string) => (payload: HostilePayload) =>
  `/api/sessions/${encodeURIComponent(payload.session)}/${suffix}`

/** A chat completion chunk with a finish reason, or a finished response. */
function endsAReply(event: unknown): boolean {
  const { choices, type } = event as { choices?: { finish_reason?: string | null }[]; type?: string }
  return type === 'response.completed' || Boolean(choices?.[0]?.finish_reason)
}

/** Whether an SSE body read at last holds a reply's last event. */
function streamEndsAReply(text: string): boolean {
  return text.split('\n').some((line) => {
    if (!line.startsWith('data: {')) return false
    try {
      return endsAReply(JSON.parse(line.slice('data: '.length)))
    } catch {
      return false
    }
  })
}

/**
 * `/v1/chat/completions` and `/v1/responses` through the official SDK, from one address (the two share
 * its turn limits); raw bodies, which the SDK cannot send, and a slow reader (its body left unread,
 * a refusal's status kept as a reason), by fetch to both.
 */
const openaiDoor: DoorDriver = async (world, input, marker) => {
  const payload = payloadFor(input, marker)
  if (payload.raw !== undefined || payload.rawKeys !== undefined) {
    const completions = await httpDoor(
      'POST',
      () => '/v1/chat/completions',
      (each) => ({
        model: each.character ?? 'alice',
        user: each.session,
        messages: [{ role: 'user', content: each.text }],
      }),
    )(world, input, marker)
    const responses = await httpDoor(
      'POST',
      () => '/v1/responses',
      (each) => ({ model: each.character ?? 'alice', user: each.session, input: each.text }),
    )(world, input, marker)
    return {
      reasons: [...completions.reasons, ...responses.reasons],
      deliveries: completions.deliveries + responses.deliveries,
    }
  }
  const reasons: string[] = []
  const slowReaders: SlowReaderOutcome[] = []
  const address = world.nextAddress()
  // Left unread until the server drops it; then read: a reply's last event says it is whole.
  const readNever = async (path: string, body: object) => {
    const reader = {
      session: payload.session,
      marker,
      bearer: world.chatToken,
      character: payload.character ?? 'alice',
    }
    try {
      slowReaders.push(
        await readNeverOverStream(
          world,
          reader,
          () =>
            openPausedStream({
              url: `${world.url}/v1${path}`,
              headers: {
                authorization: `Bearer ${world.chatToken}`,
                'content-type': 'application/json',
                'x-forwarded-for': address,
                'x-session-id': payload.session,
              },
              body: JSON.stringify({ model: payload.character ?? 'alice', stream: true, ...body }),
            }),
          streamEndsAReply,
        ),
      )
    } catch (error) {
      reasons.push(error instanceof Error ? error.message : String(error))
    }
  }
  if (input === 'slow_reader') {
    const text = `${payload.text} #0`
    await readNever('/chat/completions', { messages: [{ role: 'user', content: text }] })
    await readNever('/responses', { input: `${text} (responses)` })
    return { reasons, deliveries: 2, slowReaders }
  }
  const client = new OpenAI({
    baseURL: `${world.url}/v1`,
    apiKey: world.chatToken,
    maxRetries: 0,
    defaultHeaders: { 'x-forwarded-for': address, 'x-session-id': payload.session },
  })
  const attempt = async (
    request: () => Promise<AsyncIterable<unknown> & { controller: AbortController }>,
  ) => {
    try {
      const stream = await request()
      for await (const _event of stream) {
        // Read to the end: the turn is stored once it is sent.
      }
    } catch (error) {
      reasons.push(error instanceof Error ? error.message : String(error))
    }
  }
  for (let index = 0; index < payload.times; index++) {
    const text = `${payload.text} #${index}`
    await attempt(() =>
      client.chat.completions.create({
        model: payload.character ?? 'alice',
        stream: true,
        messages: [{ role: 'user', content: text }],
      }),
    )
    await attempt(() =>
      client.responses.create({
        model: payload.character ?? 'alice',
        stream: true,
        input: `${text} (responses)`,
      }),
    )
  }
  return { reasons, deliveries: payload.times * 2 }
}

/** A OneBot group message event as the implementation sends it (raw: any id and sender role). */
function groupEvent(
  onebot: FakeOnebot,
  groupId: number,
  payload: HostilePayload,
  marker: string,
  index: number,
  userId: number,
) {
  const event = {
    time: Math.floor(Date.now() / 1000),
    self_id: onebot.selfId,
    post_type: 'message',
    message_type: 'group',
    sub_type: 'normal',
    message_id: payload.id ?? `${marker}-${index}`,
    group_id: groupId,
    user_id: userId,
    message: [{ type: 'text', data: { text: `${payload.text} #${index}` } }],
    raw_message: '',
    font: 0,
    sender: { user_id: userId, nickname: 'member', card: '', role: payload.role ?? 'member' },
  }
  return withRawKeys(JSON.stringify(event), payload.rawKeys)
}

/**
 * A chat client's audience line with the reused id, into the connector's session, before the
 * member's message with the same id: the reason it is refused with.
 */
async function sendAsChatClient(
  world: BatteryWorld,
  payload: HostilePayload,
  marker: string,
): Promise<string> {
  const response = await fetch(`${world.url}/api/sessions/${encodeURIComponent(connectorSession)}/audience`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${world.chatToken}`,
      'content-type': 'application/json',
      'x-forwarded-for': world.nextAddress(),
    },
    body: JSON.stringify({ messages: [audienceMessage(payload, marker, 0)] }),
  })
  return (await readReason(response)) ?? `${marker}: the chat client's line was taken (${response.status})`
}

/**
 * A connector's door: the chat member cannot choose a session or a character, so the inputs that
 * name one are what an admin may do to the connector's character (delete or rename it: refused), and
 * a foreign session is a group the connector does not serve (ignored, not answered).
 */
function connectorDoor(kind: 'group' | 'private'): DoorDriver {
  return async (world, input, marker) => {
    const payload = payloadFor(input, marker)
    const onebot = input === 'flood' ? world.onebotFlood : world.onebot
    const groupId = input === 'flood' ? 789 : input === 'foreign_session' ? 999 : 123
    const reasons: string[] = []
    const user = world.nextUser()
    if (input === 'unknown_character' || input === 'deleted_character') {
      const response = await fetch(`${world.url}/api/characters/alice`, {
        method: input === 'deleted_character' ? 'DELETE' : 'PUT',
        headers: { authorization: `Bearer ${world.adminToken}`, 'content-type': 'application/json' },
        ...(input === 'unknown_character' ? { body: JSON.stringify({ name: 'Nobody' }) } : {}),
      })
      const reason = await readReason(response)
      if (reason !== undefined) reasons.push(reason)
    }
    if (input === 'reused_id') reasons.push(await sendAsChatClient(world, payload, marker))
    for (let index = 0; index < payload.times; index++) {
      if (payload.raw !== undefined) onebot.sendRaw(payload.raw)
      // A member of the cell's own: a speaker's turns per minute are bounded, and no other
      // cell's lines count against this one's.
      else if (kind === 'group') onebot.sendRaw(groupEvent(onebot, groupId, payload, marker, index, user))
      else onebot.sendPrivateMessage({ userId: user * 100 + index, text: `${payload.text} #${index}` })
    }
    return { reasons, deliveries: payload.times }
  }
}

const userInputFrame = (payload: HostilePayload, index: number, extra: object = {}) => ({
  type: 'user_input',
  session: payload.session,
  text: `${payload.text} #${index}`,
  ...(payload.character ? { character: payload.character } : {}),
  ...(payload.role ? { speaker: { id: 'speaker', role: payload.role } } : {}),
  ...extra,
})

/** Every door of the admission, and how the battery drives it. */
export const doorDrivers: Record<Door, DoorDriver> = {
  ws_user_input: webSocketDoor((payload, index) => userInputFrame(payload, index), { streams: 'own_turns' }),
  // The final input with the same words adopts the prepared turn: its reply goes out.
  ws_preflight: webSocketDoor((payload, index) => userInputFrame(payload, index, { preflight: true }), {
    streams: 'own_turns',
    slowReaderFinal: (payload) => userInputFrame(payload, 0),
  }),
  ws_audience: webSocketDoor(
    (payload, index, marker) => ({
      type: 'audience',
      session: payload.session,
      ...(payload.character ? { character: payload.character } : {}),
      messages: [audienceMessage(payload, marker, index)],
    }),
    { streams: 'own_turns' },
  ),
  ws_open: webSocketDoor(
    (payload) => ({
      type: 'open',
      session: payload.session,
      ...(payload.character ? { character: payload.character } : {}),
    }),
    { streams: 'as_follower' },
  ),
  ws_activity: webSocketDoor((payload) => ({ type: 'activity', session: payload.session, speaking: true })),
  ws_interrupt: webSocketDoor((payload) => ({
    type: 'interrupt',
    session: payload.session,
    ...(payload.character ? { character: payload.character } : {}),
  })),
  ws_observe: webSocketDoor((payload, index) => ({
    type: 'observe',
    session: payload.session,
    speaker: { id: 'speaker', ...(payload.role ? { role: payload.role } : {}) },
    text: `${payload.text} #${index}`,
  })),
  // `say` and `event` are the session owner's: a chat client is refused each, with the reason.
  ws_say: webSocketDoor((payload, index) => ({
    type: 'say',
    session: payload.session,
    ...(payload.character ? { character: payload.character } : {}),
    text: `${payload.text} #${index}`,
  })),
  ws_event: webSocketDoor((payload, index) => ({
    type: 'event',
    session: payload.session,
    ...(payload.character ? { character: payload.character } : {}),
    text: `${payload.text} #${index}`,
    respond: true,
  })),
  // A follow is tried for every frame; `open` to a new session each time is the one that says so.
  ws_follow: webSocketDoor(
    (payload, index) => ({
      type: 'open',
      session: payload.times > 1 ? `${payload.session}-${index}` : payload.session,
      ...(payload.character ? { character: payload.character } : {}),
    }),
    { token: 'follower', streams: 'as_follower' },
  ),
  http_chat: httpDoor(
    'POST',
    () => '/api/chat',
    (payload, _marker, index) => ({
      session: payload.session,
      text: `${payload.text} #${index}`,
      ...(payload.character ? { character: payload.character } : {}),
    }),
    { streams: true },
  ),
  http_audience: httpDoor('POST', sessionPath('audience'), (payload, marker, index) => ({
    ...(payload.character ? { character: payload.character } : {}),
    messages: [audienceMessage(payload, marker, index)],
  })),
  http_open: httpDoor('POST', sessionPath('open'), (payload) => ({
    ...(payload.character ? { character: payload.character } : {}),
  })),
  http_observe: httpDoor('POST', sessionPath('observe'), (payload, _marker, index) => ({
    speaker: { id: 'speaker', ...(payload.role ? { role: payload.role } : {}) },
    text: `${payload.text} #${index}`,
  })),
  http_messages: httpDoor('GET', sessionPath('messages'), () => undefined),
  http_say: httpDoor('POST', sessionPath('say'), (payload, _marker, index) => ({
    ...(payload.character ? { character: payload.character } : {}),
    text: `${payload.text} #${index}`,
  })),
  http_event: httpDoor('POST', sessionPath('events'), (payload, _marker, index) => ({
    ...(payload.character ? { character: payload.character } : {}),
    text: `${payload.text} #${index}`,
    respond: true,
  })),
  v1: openaiDoor,
  connector_audience: connectorDoor('group'),
  connector_turn: connectorDoor('private'),
}
