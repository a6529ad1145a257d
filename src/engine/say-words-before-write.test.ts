/**
 * A `say` turn's words reach the loop's check phase (where the server's sockets send the frames
 * they hold) before its history row is written, as a model reply's do (turn/spread-long-reply-end
 * .test.ts): the words are all there at once, so without the pause every frame waited for the write.
 */
import { setImmediate } from 'node:timers'
import { describe, expect, it } from 'vitest'
import { createInMemoryHistoryStore } from '../memory/index.js'
import type { HistoryStore } from '../memory/types.js'
import type { CharpipeEvent } from '../shared/events.js'
import { createScriptedProvider } from '../testing/create-scripted-provider.js'
import { makeConfig } from '../testing/create-turn-harness.js'
import { createCharpipe } from './create-charpipe.js'

describe('a say turn', () => {
  it('lets its first llm_chunk reach the check phase before its history write; llm_done follows the write', async () => {
    const order: string[] = []
    const inMemory = createInMemoryHistoryStore()
    const historyStore: HistoryStore = {
      ...inMemory,
      appendTurn: (...args) => {
        order.push('history write')
        return inMemory.appendTurn(...args)
      },
    }
    const charpipe = await createCharpipe(
      makeConfig({ history: { store: 'memory' }, character: { reply_format: 'plain' } }),
      { provider: createScriptedProvider([]), historyStore },
    )
    try {
      let done!: () => void
      const ended = new Promise<void>((resolve) => {
        done = resolve
      })
      let chunks = 0
      charpipe.sessions.follow({
        session: 'room',
        onEvent: (event) => {
          const { type } = event as CharpipeEvent
          if (type === 'llm_chunk' && chunks++ === 0)
            setImmediate(() => order.push('check phase after the first chunk'))
          if (type === 'llm_done') {
            order.push('llm_done')
            done()
          }
        },
      })
      charpipe.sessions.say({ session: 'room', text: '大家好，欢迎来到直播间！' })
      await ended
      expect(order).toEqual(['check phase after the first chunk', 'history write', 'llm_done'])
    } finally {
      await charpipe.close()
    }
  })
})
