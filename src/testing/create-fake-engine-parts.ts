/**
 * Small working stand-ins for the stages the engine composes (a plain-text reply parser, a pipeline
 * of persona, history and input, in-memory history), so a test of the engine's own rules (order,
 * interruption, persistence, tools) runs apart from the real parser, pipeline and providers.
 */
import type { CharpipeConfig } from '../config/schema.js'
import type { ContextPipeline, ModelCapabilities, PreviewResult } from '../context/types.js'
import type { EngineParts } from '../engine/engine-parts.js'
import { createInMemoryHistoryStore } from '../memory/index.js'
import { modelRoleOf } from '../memory/model-role-of.js'
import type { ReplyEvent, ReplyParser, ReplyParserOptions } from '../reply/types.js'
import { type ChatMessage, messageText } from '../shared/messages.js'

/** Plain text, sentences end at 。！？ — enough to observe the engine's event flow. */
function createSimpleReplyParser(options: ReplyParserOptions): ReplyParser {
  const emotion = options.defaultEmotion ?? '平静'
  let display = ''
  let pending = ''
  let index = 0
  let emotionSent = false
  const take = (): ReplyEvent[] => {
    const events: ReplyEvent[] = []
    let match = /[。！？]/.exec(pending)
    while (match) {
      const sentence = pending.slice(0, match.index + 1).trim()
      pending = pending.slice(match.index + 1)
      if (sentence) events.push({ type: 'sentence', index: index++, text: sentence, emotion })
      match = /[。！？]/.exec(pending)
    }
    return events
  }
  return {
    push(delta) {
      display += delta
      pending += delta
      const events: ReplyEvent[] = []
      if (!emotionSent) {
        emotionSent = true
        events.push({ type: 'emotion', emotion })
      }
      events.push({ type: 'display-delta', text: delta }, ...take())
      return events
    },
    end() {
      const events = take()
      const rest = pending.trim()
      pending = ''
      if (rest) events.push({ type: 'sentence', index: index++, text: rest, emotion })
      events.push({ type: 'done', text: display, emotion })
      return events
    },
    get displayText() {
      return display
    },
    get emotion() {
      return emotion
    },
  }
}

function capabilitiesOf(config: CharpipeConfig): ModelCapabilities {
  return {
    provider: config.llm.provider,
    apiType: 'mock',
    model: config.llm.model || 'fake',
    vision: config.llm.vision,
    functionCalling: config.llm.function_calling,
    systemRole: true,
    contextWindow: 32_768,
    maxTokens: config.llm.max_tokens,
  }
}

/** system (name + persona) + recent history + input. */
function createSimplePipeline(): ContextPipeline {
  const build: ContextPipeline['build'] = async ({ input, config, services }) => {
    const history = await services.history.loadRecent(
      { character: config.character.name, session: input.session },
      config.history.max_turns,
    )
    const messages: ChatMessage[] = [
      {
        role: 'system',
        content: `你是${config.character.name}。${config.character.persona}`,
        source: 'system',
      },
      ...history.map((message) => ({
        role: modelRoleOf(message.role),
        content: message.content,
        source: 'history' as const,
      })),
      { role: 'user', content: input.text, source: 'input' },
    ]
    return { messages, logs: [], sharedData: new Map() }
  }
  return {
    build,
    async preview(options): Promise<PreviewResult> {
      const { messages, logs } = await build(options)
      const previewMessages = messages.map((message) => ({
        role: message.role,
        content: message.content,
        source: message.source ?? 'system',
        tokens: messageText(message).length,
      }))
      return {
        messages: previewMessages,
        total_tokens: previewMessages.reduce((sum, m) => sum + m.tokens, 0),
        logs,
      }
    },
    listProcessors: () => [],
    register() {},
  }
}

export function createFakeParts(overrides: Partial<EngineParts> = {}): Partial<EngineParts> {
  return {
    createProvider: () => {
      throw new Error('tests pass a provider')
    },
    createContextPipeline: createSimplePipeline,
    createModelCapabilities: capabilitiesOf,
    createTokenCounter: () => ({
      countText: (text) => text.length,
      countMessage: (message) => messageText(message).length,
    }),
    createReplyParser: createSimpleReplyParser,
    replyParserOptionsFromConfig: (config) => ({ defaultEmotion: config.character.default_emotion }),
    applyDisplayRegexRules: (text) => text,
    createHistoryStore: async () => createInMemoryHistoryStore(),
    createHistoryResetPolicy: (reset) => ({
      shouldReset: ({ turns }) => reset.policy === 'turns' && reset.max_turns > 0 && turns >= reset.max_turns,
    }),
    createMemoryStore: async () => undefined,
    rememberTurn: async () => {},
    ...overrides,
  }
}
