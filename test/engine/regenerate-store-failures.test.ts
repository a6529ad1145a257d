/**
 * A regenerate is told apart by reading the session's newest stored turn. When that read fails the
 * request cannot be told from a new turn, and running it as one would store the question twice: it
 * fails with `store_unavailable` instead, nothing run and nothing stored. Served in memory over the
 * real engine (`/v1/chat/completions` of a client whose history the server keeps), and through the
 * library (`GenerateInput.replaces`) with `history.continue_without_store`.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createCharpipe } from '../../src/engine/index.js'
import { createInMemoryHistoryStore } from '../../src/memory/index.js'
import type { ConversationScope, HistoryStore } from '../../src/memory/types.js'
import { type CharpipeServer, createServer } from '../../src/server/index.js'
import { StoreUnavailableError } from '../../src/shared/errors.js'
import { createScriptedProvider } from '../../src/testing/create-scripted-provider.js'
import { makeConfig } from '../../src/testing/create-turn-harness.js'
import { collectEvents, doneOf } from '../../src/testing/turn-events.js'

const token = 'front-end-token-0123456789'

/** The in-memory store whose reads fail while `failing` says so; `stored()` lists the one session written. */
function createFailingStore() {
  const inner = createInMemoryHistoryStore()
  const failing = { listMessages: false, loadRecent: false }
  let written: ConversationScope | undefined
  const fail = (operation: string) =>
    new StoreUnavailableError(`the history store (memory) failed (${operation})`, { store: 'history' })
  const store: HistoryStore = {
    ...inner,
    appendTurn: async (scope, ...rest) => {
      written = scope
      return inner.appendTurn(scope, ...rest)
    },
    listMessages: async (...args) => {
      if (failing.listMessages) throw fail('listMessages')
      return inner.listMessages(...args)
    },
    loadRecent: async (...args) => {
      if (failing.loadRecent) throw fail('loadRecent')
      return inner.loadRecent(...args)
    },
  }
  const stored = async () =>
    written ? (await inner.listMessages(written)).map((message) => message.content) : []
  return { stored, store, failing }
}

let folder: string
let server: CharpipeServer | undefined
beforeEach(async () => {
  folder = await mkdtemp(join(tmpdir(), 'charpipe-regenerate-'))
})
afterEach(async () => {
  await server?.close()
  server = undefined
  await rm(folder, { recursive: true, force: true })
})

async function startServer(historyStore: HistoryStore, replies: string[]) {
  const config = makeConfig({
    server: {
      clients: [
        { name: 'front', token, profile: { session: 'client', persona: 'server', history: 'server' } },
      ],
    },
  })
  const provider = createScriptedProvider(replies.map((reply) => ({ chunks: [reply] })))
  server = await createServer({
    config,
    configPath: join(folder, 'config.yaml'),
    staticDir: folder,
    watchConfig: false,
    createCharpipe: (initial, options) => createCharpipe(initial, { ...options, provider, historyStore }),
  })
  return { server, provider }
}

type Message = { role: 'user' | 'assistant'; content: string }

async function complete(running: CharpipeServer, messages: Message[]) {
  const response = await running.app.request('http://127.0.0.1/v1/chat/completions', {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ model: 'any', messages }),
  })
  return { status: response.status, body: (await response.json()) as Record<string, unknown> }
}

describe('a regenerate whose read of the history fails', () => {
  it('/v1/chat/completions answers 503 store_unavailable: not run, the question not stored twice', async () => {
    const { stored, store, failing } = createFailingStore()
    const { server: running, provider } = await startServer(store, ['Hello!', 'A joke.', 'Another joke.'])
    const first = await complete(running, [{ role: 'user', content: 'Hi' }])
    expect(first.status).toBe(200)
    const history: Message[] = [
      { role: 'user', content: 'Hi' },
      { role: 'assistant', content: 'Hello!' },
    ]
    expect((await complete(running, [...history, { role: 'user', content: 'Tell me a joke' }])).status).toBe(
      200,
    )
    // The client drops its last reply and sends the same question again, while the read fails.
    failing.listMessages = true
    const again = await complete(running, [...history, { role: 'user', content: 'Tell me a joke' }])
    expect(again.status).toBe(503)
    expect(again.body).toMatchObject({ error: { code: 'store_unavailable' } })
    expect(provider.requests).toHaveLength(2)
    failing.listMessages = false
    expect(await stored()).toEqual(['Hi', 'Hello!', 'Tell me a joke', 'A joke.'])

    // The store back, the same regenerate replaces the last reply.
    const healed = await complete(running, [...history, { role: 'user', content: 'Tell me a joke' }])
    expect(healed.status).toBe(200)
    expect(await stored()).toEqual(['Hi', 'Hello!', 'Tell me a joke', 'Another joke.'])
  })

  it('the library (`replaces`) fails with store_unavailable even with history.continue_without_store', async () => {
    const { stored, store, failing } = createFailingStore()
    const provider = createScriptedProvider([{ chunks: ['A joke.'] }, { chunks: ['Another joke.'] }])
    const charpipe = await createCharpipe(makeConfig({ history: { continue_without_store: true } }), {
      provider,
      historyStore: store,
    })
    try {
      const first = doneOf(
        await collectEvents(charpipe.generate({ session: 'openai', text: 'Tell me a joke' })),
      )
      failing.loadRecent = true
      const events = await collectEvents(
        charpipe.generate({ session: 'openai', text: 'Tell me a joke', replaces: first.turn! }),
      )
      expect(events.filter((event) => event.type === 'llm_error')).toMatchObject([
        { code: 'store_unavailable' },
      ])
      expect(provider.requests).toHaveLength(1)
      failing.loadRecent = false
      expect(await stored()).toEqual(['Tell me a joke', 'A joke.'])
    } finally {
      await charpipe.close()
    }
  })
})
