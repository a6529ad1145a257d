import { describe, expect, it } from 'vitest'
import { createInMemoryHistoryStore } from '../memory/history/in-memory-history-store.js'
import type { MemoryHit, MemoryRetriever } from '../memory/types.js'
import { messageText } from '../shared/messages.js'
import { createFakeBuildOptions, storeTurns } from '../testing/create-fake-build-options.js'
import { createContextPipeline } from './create-context-pipeline.js'
import { registerProcessor } from './processor-registry.js'
import type { ContextProcessor } from './types.js'

const injected = [
  { role: 'user' as const, content: '你是谁？' },
  { role: 'assistant' as const, content: '我是{{char}}呀～' },
]

const shape = (messages: { role: string; source?: string }[]) =>
  messages.map((message) => `${message.role}:${message.source}`)

function createFakeMemory(hits: Partial<MemoryHit>[]): MemoryRetriever & { queries: string[] } {
  const queries: string[] = []
  return {
    queries,
    async search(query, options) {
      queries.push(query)
      return hits.slice(0, options.k).map((hit, index) => ({
        id: `m${index}`,
        scope: options.scope,
        text: `记忆${index}`,
        time: Date.UTC(2024, 5, 1),
        score: 1 - index / 10,
        kind: 'memory',
        ...hit,
      }))
    },
  }
}

describe('seed 000: 对话历史管理', () => {
  it('正常对话上下文: system + the last 10 turns + the input', async () => {
    const history = createInMemoryHistoryStore()
    await storeTurns(history, 12)
    const { messages } = await createContextPipeline().build(
      createFakeBuildOptions({ history, input: { text: '现在几点？' } }),
    )
    expect(messages).toHaveLength(1 + 20 + 1)
    expect(messages[0]!.role).toBe('system')
    expect(messageText(messages[1]!)).toBe('问题2')
    // Past replies come back in the reply format the model is asked for (auto: JSON).
    expect(messageText(messages[20]!)).toBe('{"emotion": "平静", "text": "回答11"}')
    expect(messages.at(-1)).toMatchObject({ role: 'user', content: '现在几点？', source: 'input' })
  })

  it('长期记忆注入: the top 3 memories are appended at the end of the system prompt', async () => {
    const memory = createFakeMemory([
      { text: '用户喜欢猫' },
      { text: '用户住在杭州' },
      { text: '用户叫小明' },
      {},
    ])
    const { messages, sharedData } = await createContextPipeline().build(
      createFakeBuildOptions({ memory, input: { text: '我养了什么？' } }),
    )
    expect(shape(messages)).toEqual(['system:system', 'user:input'])
    const system = messageText(messages[0]!)
    expect(system.trimEnd().endsWith('- (2024-06-01) 用户叫小明')).toBe(true)
    expect(system.indexOf('【输出格式】')).toBeLessThan(system.indexOf('用户喜欢猫'))
    expect((sharedData.get('memory.hits') as MemoryHit[]).map((hit) => hit.text)).toHaveLength(3)
    expect(memory.queries).toEqual(['我养了什么？'])
  })

  it('长期记忆注入 is skipped when memory is disabled', async () => {
    const memory = createFakeMemory([{ text: '用户喜欢猫' }])
    const { messages } = await createContextPipeline().build(
      createFakeBuildOptions({ memory, config: { memory: { enabled: false } } }),
    )
    expect(messageText(messages[0]!)).not.toContain('用户喜欢猫')
    expect(memory.queries).toEqual([])
  })
})

describe('seed 000: 角色人设 System Prompt', () => {
  it('System Prompt 构建: name, persona, JSON format with the emotions, memories', async () => {
    const memory = createFakeMemory([{ text: '上次聊到了考试' }])
    const { messages } = await createContextPipeline().build(
      createFakeBuildOptions({
        memory,
        config: { character: { name: '小樱', persona: '元气满满的高中生', reply_format: 'json' } },
      }),
    )
    const system = messageText(messages[0]!)
    expect(system).toContain('小樱')
    expect(system).toContain('元气满满的高中生')
    expect(system).toContain('{"emotion": "<情感>", "text": "<回复内容>"}')
    expect(system).toContain('开心、平静、难过、生气、惊讶、害怕、害羞')
    expect(system).toContain('上次聊到了考试')
  })

  it('prefix and plain reply formats ask for the right shape', async () => {
    const build = async (reply_format: 'prefix' | 'plain') =>
      messageText(
        (
          await createContextPipeline().build(
            createFakeBuildOptions({ config: { character: { reply_format } } }),
          )
        ).messages[0]!,
      )
    expect(await build('prefix')).toContain('{"emotion": "<情感>"}\n<回复内容>')
    expect(await build('plain')).not.toContain('emotion')
  })

  it('角色配置变更: the next build uses the new persona and keeps the history', async () => {
    const history = createInMemoryHistoryStore()
    await storeTurns(history, 2)
    const pipeline = createContextPipeline()
    await pipeline.build(createFakeBuildOptions({ history, config: { character: { persona: '旧人设' } } }))
    const { messages } = await pipeline.build(
      createFakeBuildOptions({ history, config: { character: { persona: '新人设' } } }),
    )
    expect(messageText(messages[0]!)).toContain('新人设')
    expect(messageText(messages[0]!)).not.toContain('旧人设')
    expect(messages.filter((message) => message.source === 'history')).toHaveLength(4)
  })
})

describe('seed 000: 用户情感注入', () => {
  it('appends [用户语气：愉快] to the user message for happy', async () => {
    const { messages } = await createContextPipeline().build(
      createFakeBuildOptions({ input: { text: '今天考了满分', emotion: 'happy' } }),
    )
    expect(messageText(messages.at(-1)!)).toBe('今天考了满分[用户语气：愉快]')
  })

  it('passes a recognised label named after an Object.prototype member through as the label', async () => {
    // The emotion is the client's speech recogniser's label: `toString` is not a key of the map.
    const build = (emotion: string, language: 'zh' | 'en') =>
      createContextPipeline().build(
        createFakeBuildOptions({ input: { text: 'hi', emotion }, config: { character: { language } } }),
      )
    const english = await build('toString', 'en')
    expect(messageText(english.messages.at(-1)!)).toBe('hi[User tone: toString]')
    const chinese = await build('constructor', 'zh')
    expect(messageText(chinese.messages.at(-1)!)).toBe('hi[用户语气：constructor]')
  })
})

describe('seed 000: LLMPipeline 在上下文窗口中注入示范对话', () => {
  for (const provider of ['deepseek', 'anthropic', 'ollama'] as const) {
    it(`injected_history 非空时插入示范对话 (${provider})`, async () => {
      const history = createInMemoryHistoryStore()
      await storeTurns(history, 2)
      const { messages } = await createContextPipeline().build(
        createFakeBuildOptions({
          history,
          config: { llm: { provider }, character: { injected_history: injected } },
        }),
      )
      expect(shape(messages)).toEqual([
        'system:system',
        'user:injected',
        'assistant:injected',
        'user:history',
        'assistant:history',
        'user:history',
        'assistant:history',
        'user:input',
      ])
      expect(messages[2]!.content).toBe('我是小助手呀～')
    })

    it(`injected_history 为空时不影响消息结构 (${provider})`, async () => {
      const history = createInMemoryHistoryStore()
      await storeTurns(history, 2)
      const { messages } = await createContextPipeline().build(
        createFakeBuildOptions({ history, config: { llm: { provider } } }),
      )
      expect(shape(messages)).toEqual([
        'system:system',
        'user:history',
        'assistant:history',
        'user:history',
        'assistant:history',
        'user:input',
      ])
    })
  }

  it('Anthropic 实现同样注入示范对话: with memory and emotion the shape is the same', async () => {
    const memory = createFakeMemory([{ text: '喜欢草莓' }])
    const { messages } = await createContextPipeline().build(
      createFakeBuildOptions({
        memory,
        input: { emotion: 'sad' },
        config: { llm: { provider: 'anthropic' }, character: { injected_history: injected } },
      }),
    )
    expect(shape(messages)).toEqual(['system:system', 'user:injected', 'assistant:injected', 'user:input'])
    expect(messageText(messages[0]!)).toContain('喜欢草莓')
    expect(messageText(messages.at(-1)!)).toContain('[用户语气：难过]')
  })

  it('an interrupted assistant reply is kept as stored', async () => {
    const history = createInMemoryHistoryStore()
    await history.appendTurn(
      { character: '小助手', session: 'default' },
      {
        turn: 't1',
        user: { role: 'user', content: '讲个故事', createdAt: 1 },
        assistant: { role: 'assistant', content: '从前有座山，山上', interrupted: true, createdAt: 2 },
      },
    )
    const { messages } = await createContextPipeline().build(createFakeBuildOptions({ history }))
    expect(messages[2]).toMatchObject({
      content: '{"emotion": "平静", "text": "从前有座山，山上"}',
      meta: { interrupted: true },
    })
  })
})

describe('seed 003: 执行顺序 and configuration', () => {
  const recorder = (id: string, priority: number, order: string[]): ContextProcessor => ({
    id,
    name: id,
    description: id,
    priority,
    execute: () => {
      order.push(id)
    },
  })

  it('runs processors by priority; settings override enabled and priority', async () => {
    const order: string[] = []
    const pipeline = createContextPipeline({
      processors: [recorder('c', 300, order), recorder('a', 100, order), recorder('b', 200, order)],
    })
    await pipeline.build(
      createFakeBuildOptions({
        config: { pipeline: { processors: { a: { priority: 400 }, b: { enabled: false } } } },
      }),
    )
    expect(order).toEqual(['c', 'a'])
  })

  it('配置合并策略: the character entry replaces the model entry whole; one-sided entries are used as they are', () => {
    const pipeline = createContextPipeline()
    const options = createFakeBuildOptions({
      config: {
        llm: {
          processors: {
            'token-limiter': { safety_margin: 100, max_context_tokens: 4000 },
            'regex-processor': { enabled: false },
          },
        },
        pipeline: {
          processors: { 'token-limiter': { safety_margin: 50 }, 'user-emotion': { priority: 320 } },
        },
      },
    })
    const byId = new Map(pipeline.listProcessors(options.config).map((info) => [info.id, info]))
    expect(byId.get('token-limiter')!.settings).toEqual({ safety_margin: 50 })
    expect(byId.get('regex-processor')!.enabled).toBe(false)
    expect(byId.get('user-emotion')!.priority).toBe(320)
    expect(byId.get('injection-assembler')).toMatchObject({ isCore: true, enabled: true, priority: 300 })
  })

  it('lists the builtins in priority order with their config fields', () => {
    const infos = createContextPipeline().listProcessors(createFakeBuildOptions().config)
    expect(infos.map((info) => [info.id, info.priority])).toEqual([
      ['session-loader', 100],
      ['memory-retriever', 150],
      ['regex-processor', 200],
      ['attachment-text', 250],
      ['lorebook', 270],
      ['injection-assembler', 300],
      ['user-emotion', 350],
      ['token-limiter', 400],
      ['merge-system-messages', 500],
      ['openclaw-input', 510],
      ['merge-consecutive-roles', 600],
      ['convert-system-to-user', 700],
      ['anthropic-format', 800],
      ['asset-resolver', 10_000],
    ])
    expect(
      infos.find((info) => info.id === 'regex-processor')!.configFields.map((field) => field.key),
    ).toContain('rules')
  })

  it('插件扩展点: a plugin registered at priority 450 runs between the limiter and the formatters', async () => {
    const seen: string[][] = []
    const unregister = registerProcessor({
      id: 'test-plugin-450',
      name: 'Plugin',
      description: 'records the messages it sees',
      priority: 450,
      execute(context) {
        seen.push(context.messages.map((message) => `${message.role}:${message.source}`))
        context.messages.push({ role: 'system', content: '插件提示', source: 'plugin' })
      },
    })
    try {
      const { messages } = await createContextPipeline().build(
        createFakeBuildOptions({
          config: {
            llm: { max_tokens: 100, context_window: 400 },
            pipeline: {
              processors: {
                'injection-assembler': { anchors: [{ position: 'after_persona', content: '锚点' }] },
              },
            },
          },
        }),
      )
      // Before the formatters: the anchor is still its own system message (merge-system runs at 500).
      expect(seen[0]).toEqual(['system:system', 'system:anchor', 'user:input'])
      // After: the formatters saw the plugin's message; the leading system messages were merged.
      expect(messages.map((message) => `${message.role}:${message.source}`)).toEqual([
        'system:system',
        'user:input',
        'system:plugin',
      ])
    } finally {
      unregister()
    }
  })

  it('a processor that throws is logged and skipped; the turn goes on', async () => {
    const pipeline = createContextPipeline()
    pipeline.register({
      id: 'broken',
      name: 'Broken',
      description: 'throws',
      priority: 120,
      execute() {
        throw new Error('boom')
      },
    })
    const { messages, logs } = await pipeline.build(createFakeBuildOptions())
    expect(messages.at(-1)!.source).toBe('input')
    expect(logs).toContainEqual(expect.objectContaining({ processorId: 'broken', level: 'error' }))
    expect(logs.find((log) => log.processorId === 'broken')!.message).toContain('boom')
  })

  it('a core processor that throws fails the build', async () => {
    const pipeline = createContextPipeline()
    pipeline.register({
      id: 'core-broken',
      name: 'Core',
      description: 'throws',
      priority: 120,
      isCore: true,
      execute() {
        throw new Error('core down')
      },
    })
    await expect(pipeline.build(createFakeBuildOptions())).rejects.toThrow('core down')
  })

  it('an aborted signal stops the build', async () => {
    const controller = new AbortController()
    controller.abort()
    await expect(
      createContextPipeline().build({ ...createFakeBuildOptions(), signal: controller.signal }),
    ).rejects.toMatchObject({ code: 'aborted' })
  })

  it('openclaw keeps only the input', async () => {
    const history = createInMemoryHistoryStore()
    await storeTurns(history, 2)
    const { messages } = await createContextPipeline().build(
      createFakeBuildOptions({ history, config: { llm: { provider: 'openclaw' } } }),
    )
    expect(shape(messages)).toEqual(['user:input'])
  })

  it('preview gives each final message its source and token count and the logs', async () => {
    const history = createInMemoryHistoryStore()
    await storeTurns(history, 1)
    const preview = await createContextPipeline().preview(createFakeBuildOptions({ history }))
    expect(preview.messages.map((message) => message.source)).toEqual([
      'system',
      'history',
      'history',
      'input',
    ])
    for (const message of preview.messages) expect(message.tokens).toBeGreaterThan(0)
    expect(preview.total_tokens).toBe(preview.messages.reduce((sum, message) => sum + message.tokens, 0))
    expect(preview.logs.some((log) => log.processorId === 'session-loader')).toBe(true)
  })
})
