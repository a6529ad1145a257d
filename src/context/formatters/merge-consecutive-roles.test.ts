import { describe, expect, it } from 'vitest'
import { createInMemoryHistoryStore } from '../../memory/history/in-memory-history-store.js'
import { messageText } from '../../shared/messages.js'
import { createFakeBuildOptions, storeTurns } from '../../testing/create-fake-build-options.js'
import { createContextPipeline } from '../create-context-pipeline.js'

describe('merge-consecutive-roles', () => {
  it('by default an odd injected_history never sends user, user to an OpenAI-compatible model', async () => {
    const history = createInMemoryHistoryStore()
    await storeTurns(history, 1)
    const { messages } = await createContextPipeline().build(
      createFakeBuildOptions({
        history,
        config: {
          character: { reply_format: 'plain', injected_history: [{ role: 'user', content: '示例问题' }] },
        },
      }),
    )
    expect(messages.map((message) => message.role)).toEqual(['system', 'user', 'assistant', 'user'])
    // Nothing is dropped: the example and the first stored question share one message.
    expect(messageText(messages[1]!)).toBe('示例问题\n\n问题0')
  })
})
