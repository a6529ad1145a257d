import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createInMemoryHistoryStore } from '../../memory/history/in-memory-history-store.js'
import { createSqliteMemoryStore } from '../../memory/long-term/create-sqlite-memory-store.js'
import { rememberTurn } from '../../memory/long-term/remember-turn.js'
import type { MemoryStore } from '../../memory/types.js'
import { messageText } from '../../shared/messages.js'
import { createFakeBuildOptions, storeTurns } from '../../testing/create-fake-build-options.js'
import { createContextPipeline } from '../create-context-pipeline.js'
import { formatMemories } from './format-memories.js'

let folder: string
let store: MemoryStore

beforeEach(() => {
  folder = mkdtempSync(join(tmpdir(), 'format-memories-'))
  store = createSqliteMemoryStore({ path: join(folder, 'charpipe.db'), now: () => Date.UTC(2025, 0, 6) })
})

afterEach(async () => {
  await store.close()
  rmSync(folder, { recursive: true, force: true })
})

describe('remembered turns in the prompt', () => {
  it('renders each remembered line once with one speaker label, and leaves out turns still in the history', async () => {
    const history = createInMemoryHistoryStore()
    // t0 … t11: with history.max_turns 10 the window holds t2 … t11.
    await storeTurns(history, 12)
    const speakerNames = { user: '用户', assistant: '小助手' }
    await rememberTurn(store, {
      scope: 'default',
      user: '周末去爬山吗',
      assistant: '好呀，去哪座山？',
      turn: 't0',
      time: Date.UTC(2025, 0, 1),
      speakerNames,
    })
    await rememberTurn(store, {
      scope: 'default',
      user: '周末去爬山还是看电影',
      assistant: '都行',
      turn: 't11',
      time: Date.UTC(2025, 0, 1, 0, 11),
      speakerNames,
    })
    const { messages } = await createContextPipeline().build(
      createFakeBuildOptions({
        history,
        memory: store,
        config: { history: { max_turns: 10 } },
        input: { text: '周末去爬山吗？' },
      }),
    )
    const system = messageText(messages[0]!)
    const memoryLines = system.split('\n').filter((line) => line.startsWith('- (2025-'))
    expect(memoryLines).toEqual(['- (2025-01-01) 用户: 周末去爬山吗'])
    expect(system).toContain('- (2025-01-01) 用户: 周末去爬山吗\n小助手: 好呀，去哪座山？')
    expect(system).not.toContain('用户: 用户:')
    expect(system).not.toContain('看电影')
  })

  it('adds the speaker to a memory whose text does not name one', () => {
    const hit = {
      id: 'm1',
      scope: 'default',
      kind: 'memory' as const,
      score: 0.5,
      time: Date.UTC(2025, 0, 1),
    }
    expect(
      formatMemories(
        [
          { ...hit, text: '用户养了一只猫叫咪咪', speaker: '用户' },
          { ...hit, text: '用户：周末去爬山吗', speaker: '用户' },
          { ...hit, text: 'Likes tea' },
        ],
        '【记忆】',
      ),
    ).toBe(
      '【记忆】\n- (2025-01-01) 用户: 用户养了一只猫叫咪咪\n- (2025-01-01) 用户：周末去爬山吗\n- (2025-01-01) Likes tea',
    )
  })
})
