import { describe, expect, it } from 'vitest'
import type { CharpipeConfig } from '../config/schema.js'
import { createInMemoryHistoryStore } from '../memory/index.js'
import type { HistoryStore } from '../memory/types.js'
import { messageText } from '../shared/messages.js'
import { createFakeParts } from '../testing/create-fake-engine-parts.js'
import { createScriptedProvider } from '../testing/create-scripted-provider.js'
import { makeConfig } from '../testing/create-turn-harness.js'
import { collectEvents, doneOf, watchEvents } from '../testing/turn-events.js'
import { createCharpipe } from './create-charpipe.js'

describe('reload', () => {
  it('rebuilds a changed provider for the next turn and keeps history', async () => {
    const built: string[] = []
    const providerFor = (config: CharpipeConfig) => {
      built.push(config.llm.provider)
      return createScriptedProvider([{ chunks: [`来自${config.llm.provider}。`] }], config.llm.provider)
    }
    const historyStore = createInMemoryHistoryStore()
    const charpipe = await createCharpipe(makeConfig(), {
      parts: createFakeParts(),
      provider: providerFor,
      historyStore,
    })
    expect(doneOf(await collectEvents(charpipe.generate({ text: '一' }))).text).toBe('来自mock。')

    await charpipe.reload(makeConfig({ character: { persona: '只改人设' } }))
    expect(built).toEqual(['mock'])

    await charpipe.reload(makeConfig({ llm: { provider: 'deepseek', api_key: 'sk-test-key-123' } }))
    expect(built).toEqual(['mock', 'deepseek'])
    const events = await collectEvents(charpipe.generate({ text: '二' }))
    expect(doneOf(events).text).toBe('来自deepseek。')
    const messages = await charpipe.sessions.history({ session: 'default' })
    expect(messages.map((message) => message.content)).toEqual(['一', '来自mock。', '二', '来自deepseek。'])
  })

  it('applies a persona change to the next turn while the running turn keeps its config', async () => {
    const provider = createScriptedProvider([{ chunks: ['第一。'], hang: true }, { chunks: ['第二。'] }])
    const config = makeConfig({ character: { persona: '旧人设' }, conversation: { on_new_input: 'queue' } })
    const charpipe = await createCharpipe(config, { parts: createFakeParts(), provider })
    const first = watchEvents(charpipe.generate({ text: 'a' }))
    await first.until('llm_sentence')
    await charpipe.reload(
      makeConfig({ character: { persona: '新人设' }, conversation: { on_new_input: 'queue' } }),
    )
    expect(charpipe.config.character.persona).toBe('新人设')
    await charpipe.interrupt('default')
    await first.finished
    await collectEvents(charpipe.generate({ text: 'b' }))
    expect(messageText(provider.requests[0]!.messages[0]!)).toContain('旧人设')
    expect(messageText(provider.requests[1]!.messages[0]!)).toContain('新人设')
    // History survived the reload.
    expect(provider.requests[1]!.messages.map((message) => message.content)).toContain('第一。')
  })

  it('reopens the history store when its settings change, after running turns end', async () => {
    const opened: HistoryStore[] = []
    const closed: HistoryStore[] = []
    const parts = createFakeParts({
      createHistoryStore: async () => {
        const store = createInMemoryHistoryStore()
        const tracked: HistoryStore = {
          ...store,
          close: async () => {
            closed.push(tracked)
          },
        }
        opened.push(tracked)
        return tracked
      },
    })
    const provider = createScriptedProvider([{ chunks: ['一。'], hang: true }])
    const charpipe = await createCharpipe(makeConfig(), { parts, provider })
    const running = watchEvents(charpipe.generate({ text: 'a' }))
    await running.until('llm_sentence')
    await charpipe.reload(makeConfig({ storage: { sqlite_path: './elsewhere.db' } }))
    expect(opened).toHaveLength(2)
    expect(closed).toHaveLength(0)
    await charpipe.interrupt('default')
    await running.finished
    // The running turn was stored in the store it started with, which is closed afterwards.
    expect(await opened[0]!.countTurns({ character: '小助手', session: 'default' })).toBe(1)
    expect(closed).toEqual([opened[0]])
    await charpipe.close()
    expect(closed).toEqual([opened[0], opened[1]])
  })

  it('rejects an invalid config and keeps the current one', async () => {
    const provider = createScriptedProvider([{ chunks: ['好。'] }])
    const charpipe = await createCharpipe(makeConfig(), { parts: createFakeParts(), provider })
    await expect(charpipe.reload({ llm: { temperature: 5 } } as never)).rejects.toThrow(/llm\.temperature/)
    expect(charpipe.config.llm.temperature).toBe(0.8)
  })
})
