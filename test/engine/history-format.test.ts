/**
 * A long conversation in one reply format: every request the model receives shows its past replies
 * the way it is asked to write them, and past user turns with their tone notes (through the real
 * pipeline, the OpenAI-compatible provider and the mock model server's recorded requests).
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import type { CharpipeConfigInput } from '../../src/config/schema.js'
import { createCharpipe } from '../../src/engine/index.js'
import { makeConfig } from '../../src/testing/create-turn-harness.js'
import type { MockModelServer } from '../../src/testing/index.js'
import { startMockModelServer } from '../../src/testing/index.js'
import { collectEvents } from '../../src/testing/turn-events.js'

let server: MockModelServer
beforeAll(async () => {
  server = await startMockModelServer()
})
afterAll(() => server.close())
beforeEach(() => server.reset())

const emotions = ['开心', '平静', '难过', '惊讶']

function config(character: CharpipeConfigInput['character']) {
  return makeConfig({
    llm: { provider: 'custom', base_url: `${server.url}/v1`, model: 'm', max_retries: 0 },
    history: { store: 'memory', max_turns: 10 },
    character,
  })
}

type SentMessage = { role: string; content: string }
const sentMessages = (index: number) => (server.requests[index]!.body as { messages: SentMessage[] }).messages

describe('history replayed in the reply format', () => {
  it('50 turns in json mode: every past reply in every request is the JSON the model is asked for', async () => {
    const charpipe = await createCharpipe(
      config({
        reply_format: 'json',
        injected_history: [
          { role: 'user', content: '你是谁？' },
          { role: 'assistant', content: '{"emotion": "开心", "text": "我是小助手～"}' },
        ],
      }),
    )
    for (let turn = 0; turn < 50; turn++) {
      const emotion = emotions[turn % emotions.length]!
      server.script({ text: JSON.stringify({ emotion, text: `第${turn}次回答。` }), chunkSize: 5 })
      const userEmotion = turn % 2 === 0 ? 'happy' : undefined
      await collectEvents(
        charpipe.generate({ text: `第${turn}个问题`, ...(userEmotion ? { emotion: userEmotion } : {}) }),
      )
    }
    await charpipe.close()
    expect(server.requests).toHaveLength(50)
    for (let index = 1; index < 50; index++) {
      const messages = sentMessages(index)
      const assistants = messages.filter((message) => message.role === 'assistant')
      expect(assistants.length).toBeGreaterThan(1)
      for (const message of assistants) {
        const parsed = JSON.parse(message.content) as { emotion: string; text: string }
        expect(emotions).toContain(parsed.emotion)
        expect(typeof parsed.text).toBe('string')
      }
      // Past user turns carry the tone note their input had; the injected example has none.
      for (const message of messages.filter((entry) => entry.role === 'user').slice(1)) {
        const asked = Number(/第(\d+)个问题/.exec(message.content)![1])
        expect(message.content.endsWith('[用户语气：愉快]')).toBe(asked % 2 === 0)
      }
    }
    const last = sentMessages(49)
      .filter((message) => message.role === 'assistant')
      .at(-1)!
    expect(last.content).toBe('{"emotion": "开心", "text": "第48次回答。"}')
  })

  it('prefix mode writes the emotion line, plain with tags a leading tag, and replay_format: false bare text', async () => {
    const cases: [CharpipeConfigInput['character'], Record<string, unknown>, string][] = [
      [{ reply_format: 'prefix' }, {}, '{"emotion": "难过"}\n好吧。'],
      [{ reply_format: 'plain', inline_emotion_tags: true }, {}, '[难过]好吧。'],
      [{ reply_format: 'json' }, { 'session-loader': { replay_format: false } }, '好吧。'],
    ]
    for (const [character, processors, expected] of cases) {
      server.reset()
      const charpipe = await createCharpipe({
        ...config(character),
        pipeline: { processors },
      } as never)
      const reply =
        character?.reply_format === 'prefix'
          ? '{"emotion":"难过"}\n好吧。'
          : character?.reply_format === 'plain'
            ? '[难过]好吧。'
            : '{"emotion":"难过","text":"好吧。"}'
      server.script([{ text: reply }, { text: reply }])
      await collectEvents(charpipe.generate({ text: '一' }))
      await collectEvents(charpipe.generate({ text: '二' }))
      await charpipe.close()
      expect(sentMessages(1).find((message) => message.role === 'assistant')?.content).toBe(expected)
    }
  })
})
