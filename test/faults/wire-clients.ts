/**
 * The fault suite's clients of the OpenAI-compatible endpoints, and the read-backs of what they
 * were told, for the ledger: every `/v1/responses` id a client was told of (a 200, or a streamed
 * `response.completed`) must be readable by `GET /v1/responses/:id` with the same token; a
 * regenerate told 200 must not leave its question stored twice; and every long-term memory must be
 * of a turn the history has. The servers are served in process (`app.request`, no socket) over the
 * cluster's engines; the sessions of a phase are named `<tag>-…` (under the client's namespace).
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { characterIdOf } from '../../src/config/character-id.js'
import type { CharpipeConfig } from '../../src/config/schema.js'
import type { Charpipe } from '../../src/engine/types.js'
import { createMemoryStore } from '../../src/memory/memory-store-factory.js'
import type { HistoryStore } from '../../src/memory/types.js'
import { type CharpipeServer, createServer } from '../../src/server/index.js'
import type { Logger } from '../../src/shared/logger.js'

export const wireToken = 'fault-suite-front-end-0123456789'

/** One front end whose history the server keeps, its session named by the body's `user`. */
export const wireClients = [
  { name: 'front', token: wireToken, profile: { session: 'user', persona: 'server', history: 'server' } },
] as const

export interface WireLedger {
  /** Response ids told to a client (200 or `response.completed`). */
  responsesTold: number
  /** Of those, the ones `GET /v1/responses/:id` did not find once the stores answered again. */
  responsesToldNotStored: number
  /** Regenerates answered 200. */
  regeneratesTold: number
  /** Of those, the ones whose question the history holds more than once. */
  regeneratesStoredTwice: number
  /** Long-term memories of the phase's sessions. */
  memories: number
  /** Of those, the ones whose source turn the history does not have. */
  memoriesOfTurnsNotStored: number
  /** Why a figure is not zero. */
  wireErrors: string[]
}

export const newWireLedger = (): WireLedger => ({
  responsesTold: 0,
  responsesToldNotStored: 0,
  regeneratesTold: 0,
  regeneratesStoredTwice: 0,
  memories: 0,
  memoriesOfTurnsNotStored: 0,
  wireErrors: [],
})

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** A server over each engine, served in process; `close` stops them (the engines stay open). */
export async function serveEngines(charpipes: Charpipe[], config: CharpipeConfig, logger: Logger) {
  const folder = mkdtempSync(join(tmpdir(), 'charpipe-fault-wire-'))
  const servers = await Promise.all(
    charpipes.map((charpipe) =>
      createServer({
        charpipe,
        config,
        configPath: join(folder, 'config.yaml'),
        staticDir: folder,
        watchConfig: false,
        logger,
      }),
    ),
  )
  return {
    servers,
    async close() {
      await Promise.all(servers.map((server) => server.close()))
      rmSync(folder, { recursive: true, force: true })
    },
  }
}

function post(server: CharpipeServer, path: string, body: unknown) {
  return server.app.request(`http://127.0.0.1${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${wireToken}` },
    body: JSON.stringify(body),
  })
}

/** The `response.completed` event's response id in a streamed answer, if it came. */
function findCompletedId(stream: string): string | undefined {
  for (const block of stream.split('\n\n')) {
    if (!/^event: response\.completed$/m.test(block)) continue
    const data = block
      .split('\n')
      .filter((line) => line.startsWith('data: '))
      .map((line) => line.slice(6))
      .join('\n')
    return (JSON.parse(data) as { response: { id: string } }).response.id
  }
  return undefined
}

/**
 * A client of `/v1/responses`, alternating servers, every other request streamed: the ids it was
 * told of. Failures are answers too (the store is down); it goes on with its next input.
 */
export async function runResponsesClient(options: {
  servers: CharpipeServer[]
  session: string
  minRequests: number
  goOn: () => boolean
}): Promise<string[]> {
  const told: string[] = []
  for (let index = 0; index < options.minRequests || options.goOn(); index++) {
    const server = options.servers[index % options.servers.length]!
    const stream = index % 2 === 1
    const response = await post(server, '/v1/responses', {
      model: 'any',
      input: `回应${index}`,
      user: options.session,
      stream,
    })
    const text = await response.text()
    const id = stream
      ? findCompletedId(text)
      : response.status === 200
        ? (JSON.parse(text) as { id: string }).id
        : undefined
    if (id) told.push(id)
    else await pause(100)
  }
  return told
}

type Message = { role: 'user' | 'assistant'; content: string }

/** Sends until answered 200 (a hang guard bounds it); the reply, or undefined. */
async function complete(servers: CharpipeServer[], session: string, messages: Message[], turn: number) {
  for (let attempt = 0; attempt < 40; attempt++) {
    const server = servers[(turn + attempt) % servers.length]!
    const response = await post(server, '/v1/chat/completions', { model: 'any', messages, user: session })
    const body = (await response.json()) as { choices?: { message: { content: string } }[] }
    if (response.status === 200) return body.choices?.[0]?.message.content ?? ''
    await pause(Math.min(50 * 2 ** attempt, 1000))
  }
  return undefined
}

/**
 * A front end of `/v1/chat/completions` that keeps its own history and regenerates every reply
 * after the first (drops it, sends the same question again), each request resent until answered.
 * Returns the questions whose regenerate was answered 200.
 */
export async function runRegenerateClient(options: {
  servers: CharpipeServer[]
  session: string
  minQuestions: number
  goOn: () => boolean
}): Promise<string[]> {
  const { servers, session } = options
  const history: Message[] = []
  const regenerated: string[] = []
  for (let index = 0; index < options.minQuestions || options.goOn(); index++) {
    const question = `问题${index}`
    const messages: Message[] = [...history, { role: 'user', content: question }]
    let reply = await complete(servers, session, messages, index)
    if (reply === undefined) break
    // A front end cannot regenerate its first reply: with no history of its own it is a new turn.
    if (index > 0) {
      const again = await complete(servers, session, messages, index + 1)
      if (again !== undefined) {
        regenerated.push(question)
        reply = again
      }
    }
    history.push({ role: 'user', content: question }, { role: 'assistant', content: reply })
  }
  return regenerated
}

/** Retries a read while the store is frozen or down (a generous bound: a hang guard). */
async function readWhenUp<T>(read: () => Promise<T>): Promise<T> {
  const until = Date.now() + 20_000
  for (;;) {
    try {
      return await read()
    } catch (error) {
      if (Date.now() > until) throw error
      await pause(100)
    }
  }
}

/** Each told id read back with the same token: found, or counted (5xx answers are retried). */
export async function checkResponsesStored(server: CharpipeServer, told: string[], ledger: WireLedger) {
  for (const id of told) {
    ledger.responsesTold++
    const status = await readWhenUp(async () => {
      const response = await server.app.request(`http://127.0.0.1/v1/responses/${id}`, {
        headers: { authorization: `Bearer ${wireToken}` },
      })
      await response.text()
      if (response.status >= 500) throw new Error(`GET /v1/responses/${id}: ${response.status}`)
      return response.status
    })
    if (status !== 200) {
      ledger.responsesToldNotStored++
      ledger.wireErrors.push(`response ${id} told, then read ${status}`)
    }
  }
}

/** The session's name without its client's namespace (`~…~`). */
const bareSession = (session: string) => session.replace(/^~[^~]*~/, '')

/** Every stored session of the phase, with its messages. */
async function readPhaseHistories(reader: HistoryStore, config: CharpipeConfig, tag: string) {
  const character = characterIdOf(config.character)
  const sessions = (await readWhenUp(() => reader.listSessions(character))).filter((session) =>
    bareSession(session).startsWith(`${tag}-`),
  )
  const histories = new Map<string, Awaited<ReturnType<HistoryStore['listMessages']>>>()
  for (const session of sessions)
    histories.set(session, await readWhenUp(() => reader.listMessages({ character, session })))
  return histories
}

/**
 * Regenerates told 200 whose question is stored twice, and memories of turns the history does not
 * have (the phase's sessions only; the engines are closed, so their memory work has drained).
 */
export async function checkRegeneratesAndMemories(options: {
  reader: HistoryStore
  config: CharpipeConfig
  tag: string
  regenerated: Map<string, string[]>
  ledger: WireLedger
  logger: Logger
}) {
  const { ledger, tag } = options
  const histories = await readPhaseHistories(options.reader, options.config, tag)
  for (const [session, questions] of options.regenerated) {
    const messages = [...histories].find(([name]) => bareSession(name) === session)?.[1] ?? []
    for (const question of questions) {
      ledger.regeneratesTold++
      const copies = messages.filter((message) => message.role === 'user' && message.content === question)
      if (copies.length > 1) {
        ledger.regeneratesStoredTwice++
        ledger.wireErrors.push(`${session}: regenerated ${question} stored ${copies.length} times`)
      }
    }
  }
  if (!options.config.memory.enabled) return
  const storedTurns = new Set(
    [...histories.values()].flatMap((messages) => messages.flatMap((message) => message.turn ?? [])),
  )
  const memoryStore = await createMemoryStore(
    { ...options.config, storage: { ...options.config.storage, timeout_ms: 5000 } },
    { logger: options.logger },
  )
  try {
    for (let offset = 0; ; offset += 500) {
      const page = await readWhenUp(() => memoryStore!.list({ limit: 500, offset }))
      for (const memory of page) {
        if (!bareSession(memory.scope).startsWith(`${tag}-`)) continue
        ledger.memories++
        if (memory.sourceTurn !== undefined && storedTurns.has(memory.sourceTurn)) continue
        ledger.memoriesOfTurnsNotStored++
        ledger.wireErrors.push(`memory of ${memory.scope} turn ${memory.sourceTurn}: not in the history`)
      }
      if (page.length < 500) break
    }
  } finally {
    await memoryStore?.close()
  }
}
