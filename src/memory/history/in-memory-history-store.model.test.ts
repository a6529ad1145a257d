/**
 * The in-memory store keeps its counts (turns in the context, turns that have messages) as it goes
 * instead of scanning. Held here to the SQLite store, which counts with queries, over any sequence
 * of appends (replacing the newest turn or not, with or without either message), resets, redactions
 * and repeated turn ids.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import fc from 'fast-check'
import { afterAll, describe, expect, it } from 'vitest'
import type { CompletedTurn, ConversationScope, HistoryStore, StoredMessage } from '../types.js'
import { createInMemoryHistoryStore } from './in-memory-history-store.js'
import { createSqliteHistoryStore } from './sqlite-history-store.js'

type Step =
  | {
      kind: 'append'
      turn: number
      user: 'user' | 'event' | 'none'
      assistant: boolean
      replaces: number | undefined
    }
  | { kind: 'reset' }
  | { kind: 'redact'; turn: number }

const turnId = (index: number) => `t${index}`
const summarize = (messages: StoredMessage[]) =>
  messages.map((message) => `${message.turn} ${message.role}: ${message.content}`)

const stepArbitrary: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({
      kind: fc.constant('append' as const),
      turn: fc.nat(12),
      user: fc.constantFrom('user' as const, 'event' as const, 'none' as const),
      assistant: fc.boolean(),
      replaces: fc.option(fc.nat(12), { nil: undefined }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('reset' as const) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('redact' as const), turn: fc.nat(12) }) },
)

async function apply(store: HistoryStore, scope: ConversationScope, step: Step): Promise<void> {
  if (step.kind === 'reset') return store.resetContext(scope)
  if (step.kind === 'redact') {
    await store.redactTurn?.(scope, turnId(step.turn), '[removed]')
    return
  }
  const turn: CompletedTurn = { turn: turnId(step.turn) }
  if (step.user !== 'none')
    turn.user = { role: step.user, content: `${step.user} of ${turn.turn}`, createdAt: 1 }
  // A turn has at least one message (the stores refuse an empty one).
  if (step.assistant || step.user === 'none')
    turn.assistant = { role: 'assistant', content: `reply of ${turn.turn}`, createdAt: 2 }
  await store.appendTurn(scope, turn, step.replaces === undefined ? {} : { replaces: turnId(step.replaces) })
}

describe('in-memory history store, against SQLite', () => {
  const directory = mkdtempSync(join(tmpdir(), 'charpipe-history-model-'))
  afterAll(() => rmSync(directory, { recursive: true, force: true }))
  let run = 0

  it('counts the same turns and has the same turns after any sequence of writes', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(stepArbitrary, { maxLength: 30 }), async (steps) => {
        const scope = { character: 'c', session: 's' }
        const memory = createInMemoryHistoryStore()
        const sqlite = createSqliteHistoryStore({ path: join(directory, `history-${run++}.db`) })
        try {
          for (const step of steps) {
            await apply(memory, scope, step)
            await apply(sqlite, scope, step)
            expect(await memory.countTurns(scope)).toBe(await sqlite.countTurns(scope))
            for (const window of [1, 2, 5]) {
              expect(summarize(await memory.loadRecent(scope, window))).toEqual(
                summarize(await sqlite.loadRecent(scope, window)),
              )
            }
          }
          for (let index = 0; index <= 12; index++) {
            const turn = turnId(index)
            const expected = (await sqlite.findTurn(scope, turn)).length > 0
            expect(await memory.hasTurn!(scope, turn)).toBe(expected)
            expect((await memory.findTurn(scope, turn)).length > 0).toBe(expected)
          }
        } finally {
          await memory.close()
          await sqlite.close()
        }
      }),
      { numRuns: 60 },
    )
  })
})
