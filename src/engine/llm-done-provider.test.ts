import { describe, expect, it } from 'vitest'
import { createInMemoryHistoryStore } from '../memory/history/in-memory-history-store.js'
import { createResilientProvider } from '../providers/create-resilient-provider.js'
import type { ProviderEvent } from '../providers/types.js'
import { UpstreamHttpError } from '../shared/errors.js'
import { createFakeParts } from '../testing/create-fake-engine-parts.js'
import { createFakeProvider } from '../testing/create-fake-provider.js'
import { makeConfig } from '../testing/create-turn-harness.js'
import { collectEvents, doneOf } from '../testing/turn-events.js'
import { createCharpipe } from './create-charpipe.js'

const reply = (text: string): ProviderEvent[] => [
  { type: 'text-delta', text },
  { type: 'finish', reason: 'stop' },
]

describe('llm_done names the provider and model that answered', () => {
  it('the primary, then the fallback once the primary fails', async () => {
    const primary = createFakeProvider({
      name: 'deepseek',
      model: 'deepseek-chat',
      replies: [reply('主。'), { events: [], error: new UpstreamHttpError(500, 'down') }],
    })
    const fallback = createFakeProvider({ name: 'ollama', model: 'qwen3', defaultReply: reply('备用。') })
    const provider = createResilientProvider({ primary, fallbacks: [fallback], maxRetries: 0 })
    const charpipe = await createCharpipe(makeConfig(), {
      parts: createFakeParts(),
      provider,
      historyStore: createInMemoryHistoryStore(),
    })
    const first = doneOf(await collectEvents(charpipe.generate({ text: '你好' })))
    const second = doneOf(await collectEvents(charpipe.generate({ text: '再说一句' })))
    await charpipe.close()
    expect(first).toMatchObject({ text: '主。', provider: 'deepseek', model: 'deepseek-chat' })
    expect(second).toMatchObject({ text: '备用。', provider: 'ollama', model: 'qwen3' })
  })

  it('a provider without fallbacks names itself', async () => {
    const provider = createFakeProvider({ name: 'custom', model: 'my-model', defaultReply: reply('好。') })
    const charpipe = await createCharpipe(makeConfig(), {
      parts: createFakeParts(),
      provider,
      historyStore: createInMemoryHistoryStore(),
    })
    const done = doneOf(await collectEvents(charpipe.generate({ text: '你好' })))
    await charpipe.close()
    expect(done).toMatchObject({ provider: 'custom', model: 'my-model' })
  })
})
