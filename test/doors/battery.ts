/**
 * The door battery's server and its rules, shared by its test files (door-battery-*.test.ts): one
 * server over the real engine and the mock model server, with two OneBot connectors on fake
 * implementations, started by `useBattery()` for the file that calls it (each test file of the
 * `doors` project has its own module graph, so its own battery). Each cell of a door × a hostile
 * input (hostile-inputs.ts) must hold: the process answers after it, every refusal the caller is
 * told has a reason (and the refusals that must happen do), model requests stay within the limits
 * of who caused them (counted at the mock model server, by the cell's marker in the last user
 * message), and nothing is stored twice.
 */
import { afterAll, beforeAll, expect, it, vi } from 'vitest'
import { type Door, doors } from '../../src/admission/index.js'
import { type MockModelServer, startMockModelServer } from '../../src/testing/index.js'
import { type FakeOnebot, startFakeOnebot } from '../connectors/fake-onebot-implementation.js'
import { startServerOverModel, type TestServer } from '../server/start-test-server.js'
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

export const chatToken = 'battery-chat-token-0123456789'
export const adminToken = 'battery-admin-token-0123456789'
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

export let model: MockModelServer
export let server: TestServer
let onebot: FakeOnebot
let onebotFlood: FakeOnebot
export let world: BatteryWorld

/** A cell's marker: in its text, its session and its ids; `run` tells apart a cell run again by another test. */
export const markerOf = (door: Door, input: HostileInput, run?: string) =>
  `cell-${door}-${input}${run ? `-${run}` : ''}`.replaceAll('_', '-')

export type CellOutcome = DoorOutcome & { door: Door; input: HostileInput; marker: string }

/** The text of a recorded request's last user message. */
export function lastUserText(body: unknown): string {
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

/** Starts the battery's server before the file's tests and stops it after them. */
export function useBattery() {
  beforeAll(startBattery)
  afterAll(stopBattery)
}

async function startBattery() {
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
}

async function stopBattery() {
  for (const close of world?.leftOpen ?? []) close()
  await server?.stop()
  await onebot?.close()
  await onebotFlood?.close()
  await model?.close()
}

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
export async function runCell(door: Door, input: HostileInput, run?: string): Promise<CellOutcome> {
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
export function expectCellHeld({ door, input, marker, ...outcome }: CellOutcome) {
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
export async function settleCells() {
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
export function expectWithinLimits(outcomes: readonly CellOutcome[]) {
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
export async function expectNothingStoredTwice(outcomes: readonly CellOutcome[]) {
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

export async function readMetrics(): Promise<string> {
  const response = await fetch(`${server.url}/metrics`, {
    headers: { authorization: `Bearer ${adminToken}` },
  })
  return response.text()
}

/** A refusal counter of `/metrics` (0 while it has no line). */
export function readRefusals(metrics: string, door: Door, code: string): number {
  const line = metrics
    .split('\n')
    .find((each) => each.startsWith(`charpipe_admission_refused_total{door="${door}",code="${code}"} `))
  return line ? Number(line.split(' ').at(-1)) : 0
}

/** One test per door: its cells, then the limits of who caused them and nothing stored twice. */
export function testDoors(tested: readonly Door[]) {
  for (const door of tested) {
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
}
