/**
 * The door battery: every door of the admission (src/admission/doors.ts) × one shared list of
 * hostile inputs (hostile-inputs.ts), on one server over the real engine and the mock model server,
 * with two OneBot connectors on fake implementations. Each cell must hold: the process answers
 * after it, every refusal the caller is told has a reason (and the refusals that must happen do),
 * model requests stay within the limits of who caused them (counted at the mock model server, by
 * the cell's marker in the last user message), and nothing is stored twice. A door missing from the
 * drivers' table fails the suite.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { type Door, doors } from '../../src/admission/index.js'
import { type MockModelServer, startMockModelServer } from '../../src/testing/index.js'
import { type FakeOnebot, startFakeOnebot } from '../connectors/fake-onebot-implementation.js'
import { startServerOverModel, type TestServer } from '../server/start-test-server.js'
import { openTestSocket } from '../server/websocket-client.js'
import { type BatteryWorld, type DoorOutcome, doorDrivers } from './door-drivers.js'
import { connectorSession, type HostileInput, hostileInputs } from './hostile-inputs.js'
import {
  batteryMaxBufferedBytes,
  longStory,
  longStoryAsk,
  notReadingReason,
  slowReaderDoors,
} from './slow-reader.js'
import { watchLogLines } from './watch-log-lines.js'

const chatToken = 'battery-chat-token-0123456789'
const adminToken = 'battery-admin-token-0123456789'
const followerToken = 'battery-follower-token-0123456789'

/** Doors whose deliveries are model requests of their own (a turn, an audience turn, a preflight). */
const turnDoors = new Set<Door>([
  'ws_user_input',
  'ws_preflight',
  'ws_audience',
  'http_chat',
  'http_audience',
  'v1',
  'connector_audience',
  'connector_turn',
])
/** Doors a chat client uses (a connector's doors are its own). */
const clientDoors = doors.filter((door) => !door.startsWith('connector_'))
/** Doors with a limit of 2 a minute in this config, and what a flood of 10 must be told. */
const limitedDoors = new Set<Door>([
  'ws_user_input',
  'ws_preflight',
  'ws_audience',
  'http_chat',
  'http_audience',
  'v1',
])
/** Limited doors whose flood is told by its dropped lines' reasons, not refused. */
const audienceFloodDoors = new Set<Door>(['ws_audience', 'http_audience'])

let model: MockModelServer
let server: TestServer
let onebot: FakeOnebot
let onebotFlood: FakeOnebot
let world: BatteryWorld

/** A cell's marker: in its text, its session and its ids; `run` tells apart a cell run again by another test. */
const markerOf = (door: Door, input: HostileInput, run?: string) =>
  `cell-${door}-${input}${run ? `-${run}` : ''}`.replaceAll('_', '-')

type CellOutcome = DoorOutcome & { door: Door; input: HostileInput; marker: string }

/** The text of a recorded request's last user message. */
function lastUserText(body: unknown): string {
  const messages = (body as { messages?: { role: string; content: unknown }[] }).messages ?? []
  const last = messages.filter((message) => message.role === 'user').at(-1)
  return typeof last?.content === 'string' ? last.content : JSON.stringify(last?.content ?? '')
}

/**
 * A slow reader's cell on a door whose answer streams (its own words, or the audience line a
 * follower's session gets): the model answers it at length.
 */
function asksForALongStory(text: string): boolean {
  return (
    text.includes(longStoryAsk) &&
    [...slowReaderDoors.keys()].some((door) => text.includes(markerOf(door, 'slow_reader')))
  )
}

beforeAll(async () => {
  model = await startMockModelServer({
    respond: (request) => (asksForALongStory(lastUserText(request.body)) ? longStory : undefined),
  })
  onebot = await startFakeOnebot()
  onebotFlood = await startFakeOnebot()
  server = await startServerOverModel(model.url, [
    'characters:',
    '  alice: { name: Alice, persona: A cheerful guide. }',
    '  bob: { name: Bob, persona: A calm guide. }',
    'audience:',
    '  reply: every',
    '  min_gap_ms: 0',
    'server:',
    `  token: ${chatToken}`,
    `  admin_token: ${adminToken}`,
    `  ws_max_buffered_bytes: ${batteryMaxBufferedBytes}`,
    '  trusted_proxies: ["127.0.0.1"]',
    '  clients:',
    `    - { name: follower, token: ${followerToken}, follow: [qq] }`,
    '  limits:',
    '    turns_per_minute: 2',
    '    live_sessions: 3',
    'connectors:',
    '  onebot:',
    `    - { name: qq, url: "${onebot.url}", groups: [123], private: true, character: alice, turns_per_minute: 100 }`,
    `    - { name: qqflood, url: "${onebotFlood.url}", groups: [789], private: true, character: alice, turns_per_minute: 2 }`,
  ])
  // bob was configured, then deleted: the deleted_character input names him.
  const deleted = await fetch(`${server.url}/api/characters/bob`, {
    method: 'DELETE',
    headers: { authorization: `Bearer ${adminToken}` },
  })
  expect(deleted.status).toBe(200)
  await vi.waitFor(() => expect([onebot.connectedCount(), onebotFlood.connectedCount()]).toEqual([1, 1]), {
    timeout: 15_000,
  })
  let address = 0
  let user = 5000
  world = {
    url: server.url,
    chatToken,
    adminToken,
    followerToken,
    onebot,
    onebotFlood,
    nextAddress: () => `198.51.${Math.floor(++address / 250)}.${(address % 250) + 1}`,
    nextUser: () => ++user,
    leftOpen: [],
    logLines: server.logLines,
    log: watchLogLines(server.logLines),
    maxBufferedBytes: batteryMaxBufferedBytes,
  }
})

afterAll(async () => {
  for (const close of world?.leftOpen ?? []) close()
  await server?.stop()
  await onebot?.close()
  await onebotFlood?.close()
  await model?.close()
})

/** What the server promises a reader that never reads, on the doors whose answer streams to it. */
function expectSlowReaderHeld(door: Door, outcome: DoorOutcome, marker: string) {
  const stored = slowReaderDoors.get(door)
  if (!stored) {
    expect(outcome.slowReaders, `${marker}: nothing streams to this door's reader`).toBeUndefined()
    return
  }
  const bound = batteryMaxBufferedBytes
  const readers = outcome.slowReaders ?? []
  expect(readers.length, `${marker}: every reader observed (${outcome.reasons.join('; ')})`).toBe(
    door === 'v1' ? 2 : 1,
  )
  for (const reader of readers) {
    expect(reader.servedMeanwhile, `${marker}: another client is served meanwhile`).toBe(true)
    expect(reader.stored, `${marker}: the turn is stored as documented`).toBe(stored)
    // Let go at the bound, not once the 2.9 MB reply had piled up.
    expect(reader.heldBytesAtClose, `${marker}: past the bound`).toBeGreaterThan(bound)
    expect(reader.heldBytesAtClose, `${marker}: not far past it`).toBeLessThanOrEqual(2 * bound)
    expect(reader.loggedReason, `${marker}: the documented reason`).toBe(notReadingReason(bound))
    // Reading at last, the reader finds its answer cut before the reply's end.
    expect(reader.readToTheEnd ?? false, `${marker}: the answer was dropped`).toBe(false)
    if (door.startsWith('ws_')) {
      expect(reader.letGo, `${marker}: the socket is gone`).toBe(true)
      // The close frame, when the client reads before the server's cut a second later.
      expect([1008, 1006], `${marker}: closed as not reading`).toContain(reader.closed?.code)
      if (reader.closed?.code === 1008) expect(reader.closed.reason).toBe(notReadingReason(bound))
    }
  }
}

/** Runs one cell and checks what every cell must hold; returns what happened. */
async function runCell(door: Door, input: HostileInput, run?: string): Promise<CellOutcome> {
  const marker = markerOf(door, input, run)
  const outcome = await doorDrivers[door](world, input, marker)
  // The process is alive and answers.
  expect((await fetch(`${server.url}/livez`)).status, `${marker}: the server answers`).toBe(200)
  // Every refusal the caller is told names what is wrong (no internal error, no stack).
  for (const reason of outcome.reasons) {
    expect(reason.length, `${marker}: a reason`).toBeGreaterThan(10)
    expect(reason, `${marker}: a client's error, not the server's`).not.toMatch(
      /see the server log|at .*\.ts:\d+/,
    )
  }
  return { ...outcome, door, input, marker }
}

/** What a cell of the door's own run must hold beyond every cell's rules (runCell). */
function expectCellHeld({ door, input, marker, ...outcome }: CellOutcome) {
  const isClientDoor = clientDoors.includes(door)
  if (isClientDoor && input === 'malformed_frame')
    expect(outcome.reasons.length, `${marker}: refused with a reason`).toBeGreaterThan(0)
  if (isClientDoor && door !== 'ws_follow' && (input === 'foreign_session' || input === 'reused_id'))
    expect(outcome.reasons.join(' '), `${marker}: the connector's session is refused`).toContain(
      'connector "qq"',
    )
  if (limitedDoors.has(door) && input === 'flood') {
    // An audience flood is never refused for the budget: past its two turns a line is dropped
    // with a reason, or still waits for the next minute (where the selector keeps it).
    const waiting = audienceFloodDoors.has(door)
      ? server.charpipe.audience.queue({ session: `s-${marker}` }).waiting.length
      : 0
    expect(
      outcome.reasons.length + waiting,
      `${marker}: the flood past the limit is told`,
    ).toBeGreaterThanOrEqual(8)
  }
  if (door === 'ws_follow' && input === 'flood')
    expect(outcome.reasons.join(' '), `${marker}: live sessions are bounded`).toContain('live_sessions')
  if (input === 'slow_reader') expectSlowReaderHeld(door, { ...outcome }, marker)
}

/**
 * Lets go of what the cells left open (slow readers, sockets), then waits until every turn they
 * started has ended and nothing waits for a reply in the connectors' sessions.
 */
async function settleCells() {
  for (const close of world.leftOpen.splice(0)) close()
  await vi.waitFor(
    () => {
      expect(server.charpipe.sessions.active()).toEqual([])
      for (const session of [connectorSession, 'onebot:qq:group:123', 'onebot:qqflood:group:789'])
        expect(server.charpipe.audience.queue({ session: session }).waiting).toEqual([])
    },
    { timeout: 60_000, interval: 50 },
  )
}

/** The model requests whose last user message carries each cell's marker. */
function countRequestsByMarker(outcomes: readonly CellOutcome[]): Map<string, number> {
  const requestsByMarker = new Map<string, number>()
  for (const request of model.requests) {
    const text = lastUserText(request.body)
    for (const { marker } of outcomes)
      if (text.includes(`${marker} `)) requestsByMarker.set(marker, (requestsByMarker.get(marker) ?? 0) + 1)
  }
  return requestsByMarker
}

/** Model requests stay within the limits of who caused them. */
function expectWithinLimits(outcomes: readonly CellOutcome[]) {
  const requestsByMarker = countRequestsByMarker(outcomes)
  const over: string[] = []
  for (const outcome of outcomes) {
    // `/v1` is driven at two endpoints (chat completions and responses) under one address's limits.
    const once = outcome.door === 'v1' ? 2 : 1
    const cap = !turnDoors.has(outcome.door) ? 0 : outcome.input === 'flood' ? 2 : once
    const used = requestsByMarker.get(outcome.marker) ?? 0
    if (used > cap) over.push(`${outcome.marker}: ${used} model requests, at most ${cap}`)
  }
  expect(over).toEqual([])
}

/** Nothing stored twice, in any session a cell spoke in (and the connectors' sessions). */
async function expectNothingStoredTwice(outcomes: readonly CellOutcome[]) {
  const sessions = new Set(['onebot:qq:group:123', 'onebot:qqflood:group:789'])
  for (const { marker } of outcomes) sessions.add(`s-${marker}`)
  const twice: string[] = []
  for (const session of sessions) {
    const response = await fetch(`${server.url}/api/sessions/${encodeURIComponent(session)}/messages`, {
      headers: { authorization: `Bearer ${adminToken}` },
    })
    if (response.status !== 200) {
      await response.body?.cancel()
      continue
    }
    const { messages } = (await response.json()) as { messages: { role: string; content: unknown }[] }
    const seen = new Set<string>()
    for (const message of messages) {
      const key = `${message.role} ${JSON.stringify(message.content)}`
      if (message.role === 'user' && seen.has(key)) twice.push(`${session}: ${key.slice(0, 80)}`)
      seen.add(key)
    }
  }
  expect(twice).toEqual([])
}

async function readMetrics(): Promise<string> {
  const response = await fetch(`${server.url}/metrics`, {
    headers: { authorization: `Bearer ${adminToken}` },
  })
  return response.text()
}

/** A refusal counter of `/metrics` (0 while it has no line). */
function readRefusals(metrics: string, door: Door, code: string): number {
  const line = metrics
    .split('\n')
    .find((each) => each.startsWith(`charpipe_admission_refused_total{door="${door}",code="${code}"} `))
  return line ? Number(line.split(' ').at(-1)) : 0
}

// Generous: a guard against a hang, not a measure (each door's cells take about a second).
describe('door battery', { timeout: 120_000 }, () => {
  it('has a driver for every door the admission lists, and none for a door it does not', () => {
    expect(Object.keys(doorDrivers).sort()).toEqual([...doors].sort())
  })

  for (const door of doors) {
    it(`${door}: holds against every hostile input, within the limits of who caused it, storing nothing twice`, async () => {
      const outcomes: CellOutcome[] = []
      for (const input of hostileInputs) {
        const outcome = await runCell(door, input)
        expectCellHeld(outcome)
        outcomes.push(outcome)
      }
      // Every turn started by a cell has ended and nothing waits for a reply.
      await settleCells()
      expectWithinLimits(outcomes)
      if (door === 'v1') {
        // `/v1/responses` was driven too: its turns reached the model.
        const responsesCell = `${markerOf('v1', 'privileged_role')} `
        expect(
          model.requests.some((request) => {
            const text = lastUserText(request.body)
            return text.includes(responsesCell) && text.includes('(responses)')
          }),
        ).toBe(true)
      }
      await expectNothingStoredTwice(outcomes)
    })
  }

  it("never lets a chat client's message id, role or gift into a connector's conversation", async () => {
    const run = 'apart'
    const before = await readMetrics()
    const cells = [
      ['ws_audience', 'foreign_session'],
      ['http_audience', 'privileged_role'],
      ['connector_audience', 'reused_id'],
      ['connector_audience', 'flood'],
      ['connector_audience', 'oversized_text'],
    ] as const
    const outcomes: CellOutcome[] = []
    for (const [door, input] of cells) outcomes.push(await runCell(door, input, run))
    await settleCells()
    expectWithinLimits(outcomes)
    // The member's message with the id a chat client sent first was not taken for a duplicate:
    // it reached the model.
    const reusedCell = markerOf('connector_audience', 'reused_id', run)
    // The chat client sent the same id first, into the connector's session: refused.
    const reused = outcomes.find((outcome) => outcome.marker === reusedCell)
    expect(reused?.reasons.join(' ')).toContain('connector "qq"')
    expect(model.requests.some((request) => lastUserText(request.body).includes(`${reusedCell} `))).toBe(true)
    const metrics = await readMetrics()
    // A connector's flood is never refused at the door for its budget: its turns are counted (the
    // model requests above), its lines flow into the selector, which drops what cannot wait.
    expect(metrics).not.toMatch(
      /charpipe_admission_refused_total\{door="connector_audience",code="rate_limited"\}/,
    )
    const floodCell = markerOf('connector_audience', 'flood', run)
    expect(
      server.charpipe.audience
        .queue({ session: 'onebot:qqflood:group:789', character: 'alice' })
        .dropped.filter((entry) => entry.id.startsWith(`${floodCell}-`)).length,
    ).toBeGreaterThanOrEqual(8)
    expect(readRefusals(metrics, 'connector_audience', 'bad_request')).toBeGreaterThan(
      readRefusals(before, 'connector_audience', 'bad_request'),
    )
    expect(readRefusals(metrics, 'ws_audience', 'forbidden')).toBeGreaterThan(
      readRefusals(before, 'ws_audience', 'forbidden'),
    )
    // A chat client's `owner` with a gift reached the prompt as a viewer without the gift.
    const privilegedCell = `${markerOf('http_audience', 'privileged_role', run)} `
    const privileged = model.requests
      .map((request) => JSON.stringify(request.body))
      .filter((body) => body.includes(privilegedCell))
    expect(privileged.length).toBeGreaterThan(0)
    for (const body of privileged) expect(body).not.toContain('rocket')
  })

  it("drops a chat client's gift when its speaker names no role, at both audience doors; the admin's reaches the prompt", async () => {
    const gift = { name: 'balloon', value: 3 }
    const line = (marker: string) => ({
      id: marker,
      speaker: { id: 'viewer-7' },
      text: `${marker} hello`,
      gift,
    })
    const post = (marker: string, token: string) =>
      fetch(`${server.url}/api/sessions/s-${marker}/audience`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
          'x-forwarded-for': world.nextAddress(),
        },
        body: JSON.stringify({ messages: [line(marker)] }),
      })
    const fromClient = await post('gift-http-client', chatToken)
    expect(fromClient.status).toBe(202)
    const fromAdmin = await post('gift-http-admin', adminToken)
    expect(fromAdmin.status).toBe(202)
    const socket = await openTestSocket(`${server.url}/ws`, { authorization: `Bearer ${chatToken}` })
    try {
      socket.send({ type: 'audience', session: 's-gift-ws-client', messages: [line('gift-ws-client')] })
      const requestOf = (marker: string) =>
        model.requests.find((request) => lastUserText(request.body).includes(`${marker} hello`))
      await vi.waitFor(
        () => {
          for (const marker of ['gift-http-client', 'gift-http-admin', 'gift-ws-client'])
            expect(requestOf(marker), `${marker}: answered`).toBeDefined()
        },
        { timeout: 30_000, interval: 20 },
      )
      // The admin may bring a gift: it is in the prompt, so a gift let through would be seen.
      expect(lastUserText(requestOf('gift-http-admin')?.body)).toContain('[gift: balloon')
      for (const marker of ['gift-http-client', 'gift-ws-client'])
        expect(JSON.stringify(requestOf(marker)?.body), `${marker}: no gift`).not.toContain('balloon')
    } finally {
      await socket.close()
    }
  })

  it("keeps message ids apart per source: the admin's id never makes a member's message a duplicate", async () => {
    const session = 'onebot:qq:group:123'
    const id = 'across-sources-1'
    // The admin (who may reach a connector's session) sends an id first, as a viewer of the same id.
    const posted = await fetch(`${server.url}/api/sessions/${encodeURIComponent(session)}/audience`, {
      method: 'POST',
      headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        character: 'alice',
        messages: [{ id, speaker: { id: '4343' }, text: 'admin line across sources' }],
      }),
    })
    expect(await posted.json()).toEqual({ accepted: 1, dropped: [] })
    // Then a group member's message carries the same id (and the same speaker id).
    const event = JSON.stringify({
      time: Math.floor(Date.now() / 1000),
      self_id: onebot.selfId,
      post_type: 'message',
      message_type: 'group',
      sub_type: 'normal',
      message_id: id,
      group_id: 123,
      user_id: 4343,
      message: [{ type: 'text', data: { text: 'member words across sources' } }],
      raw_message: '',
      font: 0,
      sender: { user_id: 4343, nickname: 'member', card: '', role: 'member' },
    })
    onebot.sendRaw(event)
    await vi.waitFor(
      () => {
        const bodies = model.requests.map((request) => lastUserText(request.body))
        expect(bodies.some((text) => text.includes('admin line across sources'))).toBe(true)
        expect(bodies.some((text) => text.includes('member words across sources'))).toBe(true)
      },
      { timeout: 20_000, interval: 100 },
    )
    const dropped = server.charpipe.audience.queue({ session, character: 'alice' }).dropped
    expect(dropped.filter((entry) => entry.id === id)).toEqual([])
  })
})
