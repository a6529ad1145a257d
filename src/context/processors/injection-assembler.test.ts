import { describe, expect, it } from 'vitest'
import { createInMemoryHistoryStore } from '../../memory/history/in-memory-history-store.js'
import { messageText } from '../../shared/messages.js'
import { createFakeBuildOptions, storeTurns } from '../../testing/create-fake-build-options.js'
import { createContextPipeline } from '../create-context-pipeline.js'
import { createModelCapabilities } from '../create-model-capabilities.js'
import { formatUserEmotion } from './user-emotion.js'

describe('injection-assembler', () => {
  it('places depth injections counted from the end of the history, and anchors around persona and history', async () => {
    const history = createInMemoryHistoryStore()
    await storeTurns(history, 2)
    const { messages } = await createContextPipeline().build(
      createFakeBuildOptions({
        history,
        config: {
          pipeline: {
            processors: {
              'injection-assembler': {
                depth_injections: [
                  { content: '深度0 {{char}}', role: 'system', depth: 0 },
                  { content: '深度1', role: 'user', depth: 1 },
                  { content: '深度99', role: 'system', depth: 99 },
                ],
                anchors: [
                  { position: 'before_history', role: 'user', content: '历史前' },
                  { position: 'after_history', role: 'assistant', content: '历史后' },
                ],
              },
              'merge-system-messages': { enabled: false },
              'session-loader': { replay_format: false },
              'merge-consecutive-roles': { enabled: false },
            },
          },
        },
      }),
    )
    expect(messages.map((message) => `${message.source}:${messageText(message)}`).slice(1)).toEqual([
      'anchor:历史前',
      'depth-injection:深度99',
      'history:问题0',
      'history:回答0',
      'history:问题1',
      'depth-injection:深度1',
      'history:回答1',
      'depth-injection:深度0 小助手',
      'anchor:历史后',
      'input:你好',
    ])
  })

  it('merges anchors before and after the persona into the one system prompt, in order', async () => {
    const { messages } = await createContextPipeline().build(
      createFakeBuildOptions({
        config: {
          character: { persona: '人设内容' },
          pipeline: {
            processors: {
              'injection-assembler': {
                anchors: [
                  { position: 'before_persona', content: '前置 {{date}}' },
                  { position: 'after_persona', content: '后置' },
                ],
                time_zone: 'UTC',
              },
            },
          },
        },
      }),
    )
    expect(messages).toHaveLength(2)
    const system = messageText(messages[0]!)
    expect(system.startsWith('前置 2025-01-06')).toBe(true)
    expect(system.indexOf('人设内容')).toBeLessThan(system.indexOf('后置'))
  })

  it('uses a system prompt template with macros, and mentions inline tags when they are on', async () => {
    const { messages } = await createContextPipeline().build(
      createFakeBuildOptions({
        config: {
          character: { inline_emotion_tags: true, reply_format: 'plain' },
          pipeline: {
            processors: { 'injection-assembler': { system_prompt: '我是{{char}}，今天{{weekday}}' } },
          },
        },
      }),
    )
    const system = messageText(messages[0]!)
    expect(system).toMatch(/^我是小助手，今天星期[一二三四五六日]/)
    expect(system).toContain('[开心]')
  })
})

describe('user-emotion', () => {
  const map = { happy: '愉快', sad: '难过' }
  it('maps known labels, passes unknown ones through and skips empty or neutral', () => {
    expect(formatUserEmotion('happy', map)).toBe('[用户语气：愉快]')
    expect(formatUserEmotion('HAPPY', map)).toBe('[用户语气：愉快]')
    expect(formatUserEmotion('excited', map)).toBe('[用户语气：excited]')
    expect(formatUserEmotion('neutral', map)).toBeUndefined()
    expect(formatUserEmotion('', map)).toBeUndefined()
    expect(formatUserEmotion(undefined, map)).toBeUndefined()
  })
})

describe('createModelCapabilities', () => {
  const capabilitiesOf = (llm: Record<string, unknown>) =>
    createModelCapabilities(createFakeBuildOptions({ config: { llm } as never }).config)

  it('takes apiType, window and model from the registry and the rest from llm', () => {
    expect(capabilitiesOf({ provider: 'anthropic', vision: true, max_tokens: 2000 })).toMatchObject({
      apiType: 'anthropic',
      model: 'claude-sonnet-5-5',
      contextWindow: 200_000,
      maxTokens: 2000,
      vision: true,
      systemRole: true,
      functionCalling: true,
    })
    expect(capabilitiesOf({ provider: 'moonshot', context_window: 32_000 }).contextWindow).toBe(32_000)
  })

  it('has no system role only for models without one', () => {
    expect(capabilitiesOf({ provider: 'openai', model: 'o1-mini' }).systemRole).toBe(false)
    expect(capabilitiesOf({ provider: 'ollama', model: 'gemma2:9b' }).systemRole).toBe(false)
    expect(capabilitiesOf({ provider: 'deepseek' }).systemRole).toBe(true)
  })

  it('a model without a system role gets the system text inside the first user message', async () => {
    const history = createInMemoryHistoryStore()
    await storeTurns(history, 1)
    const { messages } = await createContextPipeline().build(
      createFakeBuildOptions({ history, config: { llm: { provider: 'ollama', model: 'gemma2:9b' } } }),
    )
    expect(messages.map((message) => message.role)).toEqual(['user', 'assistant', 'user'])
    expect(messageText(messages[0]!)).toContain('你是小助手')
    expect(messageText(messages[0]!)).toContain('问题0')
  })

  it('memory_position before_input: memories leave the system prompt for a message before the input', async () => {
    const history = createInMemoryHistoryStore()
    await storeTurns(history, 1)
    const memory = {
      async search() {
        return [
          { id: 'm1', scope: 'default', text: '用户喜欢猫', time: 0, score: 1, kind: 'memory' as const },
        ]
      },
    }
    const build = async (memory_position: string) =>
      (
        await createContextPipeline().build(
          createFakeBuildOptions({
            history,
            memory,
            config: { pipeline: { processors: { 'injection-assembler': { memory_position } } } },
          }),
        )
      ).messages.map(
        (message) => `${message.role}:${message.source}:${messageText(message).includes('用户喜欢猫')}`,
      )
    expect(await build('system_prompt')).toEqual([
      'system:system:true',
      'user:history:false',
      'assistant:history:false',
      'user:input:false',
    ])
    expect(await build('before_input')).toEqual([
      'system:system:false',
      'user:history:false',
      'assistant:history:false',
      'system:memory:true',
      'user:input:false',
    ])
  })
})
