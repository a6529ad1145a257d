/**
 * The behaviour every `HistoryStore` shares, as one vitest suite run against each implementation
 * (memory, SQLite, Redis, PostgreSQL). Each test uses its own character name, so a store that shares
 * a server between tests still starts each test from nothing.
 */
import { randomUUID } from 'node:crypto'
import { afterEach, describe, expect, it } from 'vitest'
import type { CompletedTurn, ConversationScope, HistoryStore, StoredMessage } from '../memory/types.js'

export interface HistoryStoreContractOptions {
  /** Suite title, e.g. `sqlite`. */
  name: string
  /** A store for one test; the suite closes it afterwards. */
  createStore: () => Promise<HistoryStore> | HistoryStore
  /** When set, the suite is skipped and this says why (e.g. the server is down). */
  skipReason?: string
  /** Persistent stores: a second store over the same data, to show turns survive a reopen. */
  reopenStore?: () => Promise<HistoryStore> | HistoryStore
  /** Whether malformed turns are rejected (the persistent stores validate; the in-memory fake does not). */
  validatesInput?: boolean
  /** Stores over the network: a write that reaches the server after its deadline refuses itself. */
  checksDeadline?: boolean
}

/** A turn with both messages; `overrides` replace fields of the turn or of either message. */
export function buildTurn(
  index: number,
  overrides: { user?: Partial<StoredMessage>; assistant?: Partial<StoredMessage> | null; turn?: string } = {},
): CompletedTurn {
  const turn: CompletedTurn = {
    turn: overrides.turn ?? `turn-${index}`,
    user: {
      role: 'user',
      content: `问题 ${index}`,
      createdAt: 1_700_000_000_000 + index * 10,
      ...overrides.user,
    },
  }
  if (overrides.assistant !== null) {
    turn.assistant = {
      role: 'assistant',
      content: `回答 ${index}`,
      emotion: '开心',
      createdAt: 1_700_000_000_000 + index * 10 + 5,
      ...overrides.assistant,
    }
  }
  return turn
}

const contents = (messages: StoredMessage[]) => messages.map((message) => message.content)

export function describeHistoryStoreContract(options: HistoryStoreContractOptions): void {
  const title = options.skipReason
    ? `HistoryStore contract: ${options.name} (skipped: ${options.skipReason})`
    : `HistoryStore contract: ${options.name}`
  describe.skipIf(options.skipReason !== undefined)(title, () => {
    const open: HistoryStore[] = []
    const openStore = async (create = options.createStore) => {
      const store = await create()
      open.push(store)
      return store
    }
    const newScope = (session = 's1'): ConversationScope => ({ character: `角色-${randomUUID()}`, session })
    const appendTurns = async (store: HistoryStore, scope: ConversationScope, from: number, to: number) => {
      for (let index = from; index <= to; index++) await store.appendTurn(scope, buildTurn(index))
    }

    afterEach(async () => {
      await Promise.all(open.splice(0).map((store) => store.close()))
    })

    it('starts empty', async () => {
      const store = await openStore()
      const scope = newScope()
      expect(await store.loadRecent(scope, 10)).toEqual([])
      expect(await store.listMessages(scope)).toEqual([])
      expect(await store.countTurns(scope)).toBe(0)
      expect(await store.listSessions(scope.character)).toEqual([])
    })

    it('keeps the user message of a failed turn, marked failed', async () => {
      const store = await openStore()
      const scope = newScope()
      await appendTurns(store, scope, 1, 1)
      await store.appendTurn(scope, buildTurn(2, { user: { failed: true }, assistant: null }))
      const recent = await store.loadRecent(scope, 5)
      expect(contents(recent)).toEqual(['问题 1', '回答 1', '问题 2'])
      expect(recent.map((message) => message.failed)).toEqual([undefined, undefined, true])
      expect((await store.listMessages(scope)).at(-1)).toMatchObject({ role: 'user', failed: true })
    })

    it("keeps an idle turn's instruction as an event, counted as its turn's opening", async () => {
      const store = await openStore()
      const scope = newScope()
      await appendTurns(store, scope, 1, 1)
      await store.appendTurn(scope, buildTurn(2, { user: { role: 'event', content: '找个话题聊聊' } }))
      await appendTurns(store, scope, 3, 3)
      expect((await store.listMessages(scope)).map((message) => message.role)).toEqual([
        'user',
        'assistant',
        'event',
        'assistant',
        'user',
        'assistant',
      ])
      expect(await store.countTurns(scope)).toBe(3)
      const lastTwo = await store.loadRecent(scope, 2)
      expect(lastTwo.map((message) => [message.role, message.content])).toEqual([
        ['event', '找个话题聊聊'],
        ['assistant', '回答 2'],
        ['user', '问题 3'],
        ['assistant', '回答 3'],
      ])
      expect((await store.findTurn(scope, 'turn-2')).map((message) => message.role)).toEqual([
        'event',
        'assistant',
      ])
    })

    it("keeps a greeting turn (the character's reply alone) before the first input", async () => {
      const store = await openStore()
      const scope = newScope()
      const greeting = buildTurn(0, { assistant: { content: '你好呀' } })
      delete greeting.user
      await store.appendTurn(scope, greeting)
      await appendTurns(store, scope, 1, 1)
      expect(contents(await store.listMessages(scope))).toEqual(['你好呀', '问题 1', '回答 1'])
      expect(contents(await store.loadRecent(scope, 5))).toEqual(['你好呀', '问题 1', '回答 1'])
      expect((await store.listMessages(scope))[0]).toMatchObject({ role: 'assistant', turn: 'turn-0' })
    })

    it('loads the last N turns oldest first, every field intact', async () => {
      const store = await openStore()
      const scope = newScope()
      await appendTurns(store, scope, 1, 4)
      await store.appendTurn(
        scope,
        buildTurn(5, {
          user: { emotion: '难过', attachments: ['https://example.test/cat.png', 'assets/一张图.jpg'] },
          assistant: { content: '别难过，我', interrupted: true, emotion: '关心' },
        }),
      )
      const recent = await store.loadRecent(scope, 2)
      expect(contents(recent)).toEqual(['问题 4', '回答 4', '问题 5', '别难过，我'])
      const [, , user, assistant] = recent
      expect(user).toMatchObject({
        role: 'user',
        emotion: '难过',
        turn: 'turn-5',
        createdAt: 1_700_000_000_050,
      })
      expect(user!.attachments).toEqual(['https://example.test/cat.png', 'assets/一张图.jpg'])
      expect(user!.interrupted).toBeUndefined()
      expect(assistant).toMatchObject({
        role: 'assistant',
        emotion: '关心',
        interrupted: true,
        turn: 'turn-5',
      })
      expect(assistant!.createdAt).toBe(1_700_000_000_055)
      expect(assistant!.attachments).toBeUndefined()
      expect(await store.countTurns(scope)).toBe(5)
      expect(contents(await store.loadRecent(scope, 50))).toHaveLength(10)
      expect(await store.loadRecent(scope, 0)).toEqual([])
    })

    it('gives messages string ids that grow within a session', async () => {
      const store = await openStore()
      const scope = newScope()
      await appendTurns(store, scope, 1, 3)
      const ids = (await store.listMessages(scope)).map((message) => message.id)
      expect(ids.every((id) => typeof id === 'string')).toBe(true)
      const numbers = ids.map(Number)
      expect(numbers).toEqual([...numbers].sort((left, right) => left - right))
      expect(new Set(ids).size).toBe(6)
    })

    it('counts a turn without a reply as a turn', async () => {
      const store = await openStore()
      const scope = newScope()
      await store.appendTurn(scope, buildTurn(1))
      await store.appendTurn(scope, buildTurn(2, { assistant: null }))
      await store.appendTurn(scope, buildTurn(3, { assistant: null }))
      await store.appendTurn(scope, buildTurn(4))
      expect(await store.countTurns(scope)).toBe(4)
      expect(contents(await store.loadRecent(scope, 3))).toEqual(['问题 2', '问题 3', '问题 4', '回答 4'])
      expect(contents(await store.loadRecent(scope, 1))).toEqual(['问题 4', '回答 4'])
    })

    it('replaces the newest turn in the same write (a regenerated reply), never an older one or one before a reset', async () => {
      const store = await openStore()
      const scope = newScope()
      await store.appendTurn(scope, buildTurn(1))
      await store.appendTurn(scope, buildTurn(2))
      const again = buildTurn(2, { turn: 'turn-2b', assistant: { content: '回答 2 again' } })
      await store.appendTurn(scope, again, { replaces: 'turn-2' })
      expect(contents(await store.listMessages(scope))).toEqual([
        '问题 1',
        '回答 1',
        '问题 2',
        '回答 2 again',
      ])
      expect(await store.countTurns(scope)).toBe(2)
      expect(await store.findTurn(scope, 'turn-2')).toEqual([])
      expect(contents(await store.loadRecent(scope, 1))).toEqual(['问题 2', '回答 2 again'])
      // Not the newest: the turn stays and the new one is added.
      await store.appendTurn(scope, buildTurn(3), { replaces: 'turn-1' })
      expect(contents(await store.listMessages(scope))).toHaveLength(6)
      // Before a reset: out of the current context, it stays.
      await store.resetContext(scope)
      await store.appendTurn(scope, buildTurn(4), { replaces: 'turn-3' })
      expect(contents(await store.listMessages(scope))).toHaveLength(8)
      expect(await store.countTurns(scope)).toBe(1)
      // The first turn of a session replaced: the session holds only the new one.
      const fresh = newScope()
      await store.appendTurn(fresh, buildTurn(1))
      await store.appendTurn(fresh, buildTurn(1, { turn: 'turn-1b' }), { replaces: 'turn-1' })
      expect((await store.listMessages(fresh)).map((message) => message.turn)).toEqual(['turn-1b', 'turn-1b'])
      expect(await store.countTurns(fresh)).toBe(1)
    })

    it('keeps sessions and characters apart, even with separators in their names', async () => {
      const store = await openStore()
      const scope = newScope('a:b')
      const other = { character: `${scope.character}:a`, session: 'b' }
      const sibling = { ...scope, session: 's2' }
      await store.appendTurn(scope, buildTurn(1))
      await store.appendTurn(other, buildTurn(2))
      await store.appendTurn(sibling, buildTurn(3))
      expect(contents(await store.loadRecent(scope, 10))).toEqual(['问题 1', '回答 1'])
      expect(contents(await store.loadRecent(other, 10))).toEqual(['问题 2', '回答 2'])
      expect([...(await store.listSessions(scope.character))].sort()).toEqual(['a:b', 's2'])
      expect(await store.listSessions(other.character)).toEqual(['b'])
    })

    it('forgets a cleared session and starts it again from nothing', async () => {
      const store = await openStore()
      const scope = newScope()
      const sibling = { ...scope, session: 's2' }
      await appendTurns(store, scope, 1, 3)
      await store.appendTurn(sibling, buildTurn(9))
      await store.clearSession(scope)
      expect(await store.loadRecent(scope, 10)).toEqual([])
      expect(await store.listMessages(scope)).toEqual([])
      expect(await store.countTurns(scope)).toBe(0)
      expect(await store.listSessions(scope.character)).toEqual(['s2'])
      expect(await store.countTurns(sibling)).toBe(1)
      await store.appendTurn(scope, buildTurn(4))
      expect(contents(await store.loadRecent(scope, 10))).toEqual(['问题 4', '回答 4'])
      expect(await store.countTurns(scope)).toBe(1)
      await store.clearSession(newScope())
    })

    it('starts a fresh context on reset but keeps every message listed', async () => {
      const store = await openStore()
      const scope = newScope()
      await appendTurns(store, scope, 1, 2)
      await store.resetContext(scope)
      expect(await store.loadRecent(scope, 10)).toEqual([])
      expect(await store.countTurns(scope)).toBe(0)
      await appendTurns(store, scope, 3, 4)
      expect(contents(await store.loadRecent(scope, 10))).toEqual(['问题 3', '回答 3', '问题 4', '回答 4'])
      expect(contents(await store.loadRecent(scope, 1))).toEqual(['问题 4', '回答 4'])
      expect(await store.countTurns(scope)).toBe(2)
      await store.resetContext(scope)
      await store.appendTurn(scope, buildTurn(5))
      expect(contents(await store.loadRecent(scope, 10))).toEqual(['问题 5', '回答 5'])
      expect(await store.listMessages(scope)).toHaveLength(10)
      await store.resetContext(newScope())
    })

    it('pages back with beforeId and limit', async () => {
      const store = await openStore()
      const scope = newScope()
      await appendTurns(store, scope, 1, 3)
      const all = await store.listMessages(scope)
      expect(contents(all)).toEqual(['问题 1', '回答 1', '问题 2', '回答 2', '问题 3', '回答 3'])
      const page = await store.listMessages(scope, { beforeId: all[4]!.id, limit: 2 })
      expect(contents(page)).toEqual(['问题 2', '回答 2'])
      expect(contents(await store.listMessages(scope, { limit: 3 }))).toEqual(['回答 2', '问题 3', '回答 3'])
      expect(contents(await store.listMessages(scope, { beforeId: all[2]!.id }))).toEqual([
        '问题 1',
        '回答 1',
      ])
      expect(await store.listMessages(scope, { beforeId: all[0]!.id })).toEqual([])
    })

    it('keeps every turn of concurrent writers, in one session and across sessions', async () => {
      const store = await openStore()
      const scope = newScope()
      const sibling = { ...scope, session: 's2' }
      await Promise.all([
        ...Array.from({ length: 10 }, (_, index) => store.appendTurn(scope, buildTurn(index + 1))),
        ...Array.from({ length: 10 }, (_, index) => store.appendTurn(sibling, buildTurn(index + 1))),
      ])
      expect(await store.countTurns(scope)).toBe(10)
      expect(await store.countTurns(sibling)).toBe(10)
      const messages = await store.listMessages(scope)
      expect(messages).toHaveLength(20)
      // Whatever order they landed in, each reply directly follows its own question.
      for (let index = 0; index < messages.length; index += 2) {
        expect(messages[index + 1]!.turn).toBe(messages[index]!.turn)
      }
    })

    it('stores a turn once, however often and however concurrently it is written', async () => {
      const store = await openStore()
      const scope = newScope()
      await store.appendTurn(scope, buildTurn(1))
      // A retried write, and a resend arriving on several servers at once.
      await store.appendTurn(scope, buildTurn(1, { assistant: { content: '另一个回答' } }))
      await Promise.all(Array.from({ length: 5 }, () => store.appendTurn(scope, buildTurn(2))))
      await store.appendTurn(scope, buildTurn(3))
      expect(contents(await store.listMessages(scope))).toEqual([
        '问题 1',
        '回答 1',
        '问题 2',
        '回答 2',
        '问题 3',
        '回答 3',
      ])
      expect(await store.countTurns(scope)).toBe(3)
    })

    it('replaces the words of one turn with a marker and keeps its reply and every other turn', async () => {
      const store = await openStore()
      const scope = newScope()
      await appendTurns(store, scope, 1, 2)
      await store.appendTurn(scope, buildTurn(3, { user: { attachments: ['photo.png'] } }))
      expect(store.redactTurn).toBeTypeOf('function')
      expect(await store.redactTurn!(scope, 'turn-3', '[erased]')).toBe(1)
      expect(await store.redactTurn!(scope, 'turn-9', '[erased]')).toBe(0)
      expect(await store.redactTurn!({ ...scope, session: 'other' }, 'turn-1', '[erased]')).toBe(0)
      const messages = await store.listMessages(scope)
      expect(contents(messages)).toEqual(['问题 1', '回答 1', '问题 2', '回答 2', '[erased]', '回答 3'])
      expect(messages[4]!.attachments ?? []).toEqual([])
      expect(contents(await store.loadRecent(scope, 1))).toEqual(['[erased]', '回答 3'])
    })

    it('finds a turn by its id, and nothing for a turn it does not have', async () => {
      const store = await openStore()
      const scope = newScope()
      await appendTurns(store, scope, 1, 3)
      await store.appendTurn(scope, buildTurn(4, { assistant: null }))
      const found = await store.findTurn(scope, 'turn-2')
      expect(found.map((message) => [message.role, message.content, message.turn])).toEqual([
        ['user', '问题 2', 'turn-2'],
        ['assistant', '回答 2', 'turn-2'],
      ])
      expect(contents(await store.findTurn(scope, 'turn-4'))).toEqual(['问题 4'])
      expect(await store.findTurn(scope, 'turn-9')).toEqual([])
      expect(await store.findTurn({ ...scope, session: 'other' }, 'turn-2')).toEqual([])
      await store.clearSession(scope)
      expect(await store.findTurn(scope, 'turn-2')).toEqual([])
    })

    it('tells whether it has a turn as finding the turn does: appended, replaced, cleared, another session', async () => {
      const store = await openStore()
      const scope = newScope()
      const agrees = async (where: typeof scope, turn: string, expected: boolean) => {
        expect((await store.findTurn(where, turn)).length > 0).toBe(expected)
        if (store.hasTurn) expect(await store.hasTurn(where, turn)).toBe(expected)
      }
      await agrees(scope, 'turn-1', false)
      await appendTurns(store, scope, 1, 2)
      await store.appendTurn(scope, buildTurn(3, { assistant: null }))
      await agrees(scope, 'turn-1', true)
      await agrees(scope, 'turn-3', true)
      await agrees({ ...scope, session: 'other' }, 'turn-1', false)
      await store.appendTurn(scope, buildTurn(4, { turn: 'turn-3b' }), { replaces: 'turn-3' })
      await agrees(scope, 'turn-3', false)
      await agrees(scope, 'turn-3b', true)
      await store.clearSession(scope)
      await agrees(scope, 'turn-1', false)
    })

    it('stores a write that arrives before its deadline', async () => {
      const store = await openStore()
      const scope = newScope()
      await store.appendTurn(scope, buildTurn(1), { deadline: Date.now() + 60_000 })
      expect(contents(await store.findTurn(scope, 'turn-1'))).toEqual(['问题 1', '回答 1'])
    })

    it.skipIf(!options.checksDeadline)(
      'refuses a write that reaches the server after its deadline',
      async () => {
        const store = await openStore()
        const scope = newScope()
        await expect(store.appendTurn(scope, buildTurn(1), { deadline: Date.now() - 1 })).rejects.toThrow(
          /deadline/,
        )
        expect(await store.findTurn(scope, 'turn-1')).toEqual([])
        expect(await store.listMessages(scope)).toEqual([])
      },
    )
    it.skipIf(!options.checksDeadline)(
      'settles a turn once its deadline has passed on the server: stored or never',
      async () => {
        const store = await openStore()
        const scope = newScope()
        await store.appendTurn(scope, buildTurn(1), { deadline: Date.now() + 60_000 })
        // A deadline still ahead on the server's clock is waited for, not guessed at.
        const deadline = Date.now() + 150
        expect(await store.settleTurn?.(scope, 'turn-1', deadline)).toBe(true)
        expect(await store.settleTurn?.(scope, 'turn-2', deadline)).toBe(false)
        await expect(store.appendTurn(scope, buildTurn(2), { deadline })).rejects.toThrow(/deadline/)
        expect(await store.findTurn(scope, 'turn-2')).toEqual([])
      },
    )
    it.skipIf(!options.reopenStore)('keeps turns and the reset marker across a reopen', async () => {
      const store = await openStore()
      const scope = newScope()
      await appendTurns(store, scope, 1, 2)
      await store.resetContext(scope)
      await store.appendTurn(scope, buildTurn(3, { assistant: { interrupted: true } }))
      await store.close()
      const reopened = await openStore(options.reopenStore)
      const recent = await reopened.loadRecent(scope, 10)
      expect(contents(recent)).toEqual(['问题 3', '回答 3'])
      expect(recent[1]!.interrupted).toBe(true)
      expect(await reopened.listMessages(scope)).toHaveLength(6)
      expect(await reopened.countTurns(scope)).toBe(1)
    })

    it.skipIf(!options.validatesInput)(
      'rejects a malformed turn by naming the field and stores nothing',
      async () => {
        const store = await openStore()
        const scope = newScope()
        const bad = (turn: unknown) => store.appendTurn(scope, turn as CompletedTurn)
        await expect(bad({ ...buildTurn(1), turn: '' })).rejects.toThrow(/turn\.turn/)
        await expect(bad(buildTurn(1, { user: { role: 'assistant' } }))).rejects.toThrow(/turn\.user\.role/)
        await expect(bad(buildTurn(1, { assistant: { content: 42 as never } }))).rejects.toThrow(
          /turn\.assistant\.content/,
        )
        await expect(bad(buildTurn(1, { user: { attachments: [1] as never } }))).rejects.toThrow(
          /attachments/,
        )
        await expect(store.appendTurn({ character: '', session: 's' }, buildTurn(1))).rejects.toThrow(
          /character/,
        )
        await expect(store.loadRecent(scope, 1.5)).rejects.toThrow(/maxTurns/)
        expect(await store.countTurns(scope)).toBe(0)
        expect(await store.listMessages(scope)).toEqual([])
      },
    )
  })
}
