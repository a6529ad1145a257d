import { describe, expect, it } from 'vitest'
import { createInMemoryHistoryStore } from '../../memory/history/in-memory-history-store.js'
import { messageText } from '../../shared/messages.js'
import { createFakeBuildOptions, storeTurns } from '../../testing/create-fake-build-options.js'
import { checkPipelineConfig } from '../check-pipeline-config.js'
import { createContextPipeline } from '../create-context-pipeline.js'
import { turnsInBlockWindow } from './session-loader.js'

async function firstHistoryText(storedTurns: number, trimBlock: number) {
  const history = createInMemoryHistoryStore()
  await storeTurns(history, storedTurns)
  const { messages } = await createContextPipeline().build(
    createFakeBuildOptions({
      history,
      config: {
        history: { max_turns: 4 },
        pipeline: { processors: { 'session-loader': { trim_block: trimBlock } } },
      },
    }),
  )
  const loaded = messages.filter((message) => message.source === 'history')
  return { first: messageText(loaded[0]!), turns: loaded.length / 2 }
}

describe('session-loader trim_block', () => {
  it('moves the first loaded turn one turn at a time by default', async () => {
    expect(await firstHistoryText(6, 1)).toEqual({ first: '问题2', turns: 4 })
    expect(await firstHistoryText(7, 1)).toEqual({ first: '问题3', turns: 4 })
  })

  it('keeps the first loaded turn for a whole block, never loading fewer than max_turns', async () => {
    const firsts = []
    for (let stored = 4; stored <= 12; stored++) firsts.push(await firstHistoryText(stored, 3))
    expect(firsts.map((result) => result.first)).toEqual([
      '问题0',
      '问题0',
      '问题0',
      '问题3',
      '问题3',
      '问题3',
      '问题6',
      '问题6',
      '问题6',
    ])
    for (const result of firsts) expect(result.turns).toBeGreaterThanOrEqual(4)
    for (const result of firsts) expect(result.turns).toBeLessThanOrEqual(6)
  })

  it('counts the window from the stored turns', () => {
    expect(turnsInBlockWindow(3, 10, 5)).toBe(10)
    expect(turnsInBlockWindow(10, 10, 5)).toBe(10)
    expect(turnsInBlockWindow(11, 10, 5)).toBe(11)
    expect(turnsInBlockWindow(14, 10, 5)).toBe(14)
    expect(turnsInBlockWindow(15, 10, 5)).toBe(10)
    expect(turnsInBlockWindow(15, 10, 1)).toBe(10)
  })

  it('refuses a block that is not a whole number from 1 to 100', () => {
    for (const trim_block of [0, 1.5, 101, '5']) {
      const { config } = createFakeBuildOptions({
        config: { pipeline: { processors: { 'session-loader': { trim_block } } } },
      } as never)
      expect(checkPipelineConfig(config).map((issue) => issue.path)).toEqual([
        'pipeline.processors.session-loader.trim_block',
      ])
    }
  })
})
