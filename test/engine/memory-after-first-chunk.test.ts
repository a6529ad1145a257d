/**
 * A starting turn goes before the memory write of the turn before it: the write's slices (segmenting
 * ahead, the SQLite transaction) wait while the next turn builds its context and waits for its
 * model, and run once that turn's first chunk is out. Through `createCharpipe` with the SQLite memory
 * store it makes from the config (the engine's queue of background slices); time stands still (a
 * manual clock), so the hold never runs out here.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { createCharpipe } from '../../src/engine/index.js'
import { createSqliteMemoryStore } from '../../src/memory/index.js'
import type { ChatProvider, ProviderEvent } from '../../src/providers/types.js'
import { nextTurnOfEventLoop } from '../../src/shared/next-turn-of-event-loop.js'
import { createManualClock } from '../../src/testing/create-manual-clock.js'
import { makeConfig } from '../../src/testing/create-turn-harness.js'

const folders: string[] = []
afterEach(() => {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true })
})

/** Answers at once, except request `heldIndex`, which waits for `answer()` before its first text. */
function createHeldProvider(heldIndex: number) {
  let requests = 0
  let answer!: () => void
  const answered = new Promise<void>((resolve) => {
    answer = resolve
  })
  let heldStarted!: () => void
  const started = new Promise<void>((resolve) => {
    heldStarted = resolve
  })
  const provider: ChatProvider = {
    name: 'held',
    model: 'held-model',
    async *streamChat(): AsyncGenerator<ProviderEvent> {
      const index = requests++
      if (index === heldIndex) {
        heldStarted()
        await answered
      }
      yield { type: 'text-delta', text: `回答${index}。` }
      yield { type: 'finish', reason: 'stop' }
    },
  }
  return { provider, started, answer }
}

async function listMemoryTexts(path: string): Promise<string[]> {
  const reader = createSqliteMemoryStore({ path })
  try {
    return (await reader.list({ limit: 10 })).map((memory) => memory.text)
  } finally {
    await reader.close()
  }
}

describe('the memory write of the turn before waits for the next turn to start', () => {
  it('runs only once the next turn has sent its first chunk', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'charpipe-memory-after-first-chunk-'))
    folders.push(folder)
    const path = join(folder, 'charpipe.db')
    const held = createHeldProvider(1)
    const charpipe = await createCharpipe(
      makeConfig({ memory: { enabled: true, store: 'sqlite' }, storage: { sqlite_path: path } }),
      { clock: createManualClock(), provider: held.provider },
    )
    try {
      const ignore = () => {}
      await charpipe.run({ session: 's', text: '灯塔在哪里？' }, { onEvent: ignore })
      const second = charpipe.run({ session: 's', text: '渔船几点回来？' }, { onEvent: ignore })
      await held.started
      // Loop turns enough for a write nobody holds to be stored several times over.
      for (let turn = 0; turn < 20; turn++) await nextTurnOfEventLoop()
      expect(await listMemoryTexts(path)).toEqual([])

      held.answer()
      await second
      await expect.poll(() => listMemoryTexts(path)).toContainEqual(expect.stringContaining('灯塔在哪里？'))
    } finally {
      await charpipe.close()
    }
    const texts = await listMemoryTexts(path)
    expect(texts).toHaveLength(2)
  })
})
