/** The turn test harness: a real engine on a scripted model and a manual clock, input → events. */
import { describe, expect, it } from 'vitest'
import { createTurnHarness } from './create-turn-harness.js'
import { doneOf, sentencesOf, typesOf } from './turn-events.js'

describe('createTurnHarness', () => {
  it('runs a turn on the scripted model and gives its events, llm_done last', async () => {
    const harness = await createTurnHarness({
      config: { character: { reply_format: 'plain' } },
      steps: [{ chunks: ['你好。', '今天天气不错。'] }],
    })
    try {
      const events = await harness.turn({ text: '你好', session: 'harness' })
      expect(sentencesOf(events)).toEqual(['你好。', '今天天气不错。'])
      expect(typesOf(events).at(-1)).toBe('llm_done')
      expect(doneOf(events).text).toBe('你好。今天天气不错。')
      // Nothing advanced the manual clock: the turn took no time on it.
      expect(doneOf(events).timing?.total_ms).toBe(0)
      const history = await harness.charpipe.sessions.history({ session: 'harness' })
      expect(history.map((message) => message.role)).toEqual(['user', 'assistant'])
    } finally {
      await harness.close()
    }
  })
})
