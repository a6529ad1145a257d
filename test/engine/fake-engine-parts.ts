/**
 * Small working stand-ins for the stages the engine composes, so the engine's own rules (order,
 * interruption, persistence, tools) are tested apart from the real parser, pipeline and providers.
 */

import type { CharpipeConfig } from '../../src/config/schema.js'
import type { ContextPipeline, ModelCapabilities, PreviewResult } from '../../src/context/types.js'
import type { EngineParts } from '../../src/engine/engine-parts.js'
import { createInMemoryHistoryStore } from '../../src/memory/index.js'
import { modelRoleOf } from '../../src/memory/model-role-of.js'
import { sleepWithSignal } from '../../src/providers/create-resilient-provider.js'
import type { ChatProvider, ChatRequest, ProviderEvent, Usage } from '../../src/providers/types.js'
import type { ReplyEvent, ReplyParser, ReplyParserOptions } from '../../src/reply/types.js'
import { type ChatMessage, messageText } from '../../src/shared/messages.js'

/** Plain text, sentences end at 。！？ — enough to observe the engine's event flow. */
export function createSimpleReplyParser(options: ReplyParserOptions): ReplyParser {
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
export function createSimplePipeline(): ContextPipeline {
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

export interface ScriptedStep {
  /** Text deltas, in order. */
  chunks?: string[]
  toolCalls?: { id: string; name: string; arguments: unknown }[]
  reasoning?: string[]
  /** Wait before each chunk (ms). */
  delayMs?: number
  /** Never finishes after the chunks (until aborted). */
  hang?: boolean
  /** Thrown after the chunks. */
  error?: Error
  /** Reported after the chunks, as a provider reports its token usage. */
  usage?: Usage
}

export interface ScriptedProvider extends ChatProvider {
  requests: ChatRequest[]
  /** Resolves when request number `index` (0-based) has begun streaming. */
  started(index: number): Promise<void>
}

/** A provider that plays one scripted step per request and honours the abort signal. */
export function createScriptedProvider(steps: ScriptedStep[], name = 'fake'): ScriptedProvider {
  const requests: ChatRequest[] = []
  const waiters = new Map<number, () => void>()
  const startedPromises = new Map<number, Promise<void>>()
  const startedOf = (index: number) => {
    let promise = startedPromises.get(index)
    if (!promise) {
      promise = new Promise<void>((resolve) => waiters.set(index, resolve))
      startedPromises.set(index, promise)
    }
    return promise
  }
  return {
    name,
    model: `${name}-model`,
    requests,
    started: startedOf,
    async *streamChat(request, options = {}): AsyncGenerator<ProviderEvent> {
      const index = requests.length
      requests.push(structuredClone(request))
      const step = steps[Math.min(index, steps.length - 1)] ?? {}
      const signal = options.signal
      const sleep = (ms: number) => sleepWithSignal(ms, signal)
      startedOf(index)
      waiters.get(index)?.()
      for (const text of step.reasoning ?? []) yield { type: 'reasoning-delta', text }
      for (const text of step.chunks ?? []) {
        if (step.delayMs) await sleep(step.delayMs)
        yield { type: 'text-delta', text }
      }
      for (const call of step.toolCalls ?? []) {
        yield { type: 'tool-call', ...call, rawArguments: JSON.stringify(call.arguments) }
      }
      if (step.error) throw step.error
      if (step.usage) yield { type: 'usage', usage: step.usage }
      if (step.hang) await sleep(3_600_000)
      yield { type: 'finish', reason: step.toolCalls?.length ? 'tool-calls' : 'stop' }
    },
  }
}
