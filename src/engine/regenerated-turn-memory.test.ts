import { describe, expect, it, vi } from 'vitest'
import { createInMemoryHistoryStore, createSqliteMemoryStore } from '../memory/index.js'
import { createScriptedProvider } from '../testing/create-scripted-provider.js'
import { makeConfig } from '../testing/create-turn-harness.js'
import { collectEvents, doneOf } from '../testing/turn-events.js'
import { createCharpipe } from './create-charpipe.js'

describe('long-term memory of a regenerated turn (TurnInput.replaces)', () => {
  it('forgets the replaced turn once the history has replaced it, and only then', async () => {
    const memoryStore = createSqliteMemoryStore({ path: ':memory:' })
    const provider = createScriptedProvider([
      { chunks: ['Tea with lemon.'] },
      { chunks: ['A black coffee.'] },
      { chunks: ['Green tea.'] },
      { chunks: ['Hot chocolate.'] },
    ])
    const charpipe = await createCharpipe(makeConfig({ memory: { enabled: true } }), {
      provider,
      historyStore: createInMemoryHistoryStore(),
      memoryStore,
    })
    try {
      const say = async (text: string, replaces?: string) =>
        doneOf(
          await collectEvents(charpipe.generate({ text, session: 's', ...(replaces ? { replaces } : {}) })),
        ).turn
      const remembered = async () =>
        (await memoryStore.list({ limit: 50 })).map((memory) => memory.text).join('\n')
      const first = await say('What do I drink in the morning?')
      const second = await say('And in the evening?')
      // Not the newest turn: the history keeps it, so it is still said, and remembered.
      await say('What do I drink in the morning?', first)
      const third = (await charpipe.history('s')).at(-1)!.turn!
      expect(third).not.toBe(second)
      // The newest turn, regenerated: its reply and its memory are replaced.
      await say('What do I drink in the morning?', third)
      // The memory is written after llm_done.
      await vi.waitFor(async () => expect(await remembered()).toContain('Hot chocolate.'))
      const texts = await remembered()
      expect(texts).not.toContain('Green tea.')
      expect(texts).toContain('Tea with lemon.')
      expect(texts).toContain('A black coffee.')
    } finally {
      await charpipe.close()
    }
  })
})
