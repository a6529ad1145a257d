import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { ChatMessage, MessageSource } from '../../shared/messages.js'
import { createFakeBuildOptions } from '../../testing/create-fake-build-options.js'
import type { PipelineContext, TokenCounter } from '../types.js'
import { computeTokenBudget, tokenLimiter } from './token-limiter.js'

/** A counter where a message costs its text length; it records how often each message was counted. */
function createCountingCounter() {
  const counted = new Map<ChatMessage, number>()
  const counter: TokenCounter = {
    countText: (text) => text.length,
    countMessage(message) {
      counted.set(message, (counted.get(message) ?? 0) + 1)
      return typeof message.content === 'string' ? message.content.length : 0
    },
  }
  return { counter, counted }
}

function createContext(
  messages: ChatMessage[],
  contextWindow: number,
  counter: TokenCounter,
): PipelineContext {
  const options = createFakeBuildOptions({ capabilities: { contextWindow, maxTokens: 10 } })
  return {
    messages,
    input: options.input,
    character: options.config.character,
    config: options.config,
    capabilities: options.capabilities,
    services: { ...options.services, tokenCounter: counter },
    timestamp: 0,
    sharedData: new Map(),
    logs: [],
  }
}

const fixedSources: MessageSource[] = ['system', 'memory', 'injected', 'depth-injection', 'anchor']

const messageArbitrary = fc.record({
  kind: fc.constantFrom<'history' | 'fixed'>('history', 'history', 'fixed'),
  fixedSource: fc.constantFrom(...fixedSources),
  role: fc.constantFrom<'user' | 'assistant'>('user', 'assistant'),
  length: fc.integer({ min: 0, max: 60 }),
})

describe('token-limiter', () => {
  it('never exceeds the budget while history remains, and never cuts system, memory, injected or input', () => {
    fc.assert(
      fc.property(
        fc.array(messageArbitrary, { maxLength: 40 }),
        fc.integer({ min: 0, max: 800 }),
        (specs, window) => {
          const messages: ChatMessage[] = specs.map((spec, index) =>
            spec.kind === 'history'
              ? { role: spec.role, content: 'x'.repeat(spec.length), source: 'history', meta: { index } }
              : {
                  role: 'system',
                  content: 'y'.repeat(spec.length),
                  source: spec.fixedSource,
                  meta: { index },
                },
          )
          messages.push({ role: 'user', content: 'z'.repeat(5), source: 'input' })
          const { counter, counted } = createCountingCounter()
          const context = createContext([...messages], window + 10, counter)
          tokenLimiter.execute(context, { safety_margin: 0 })
          const budget = computeTokenBudget(context, 0)
          const total = context.messages.reduce((sum, message) => sum + counter.countMessage(message), 0)
          const historyLeft = context.messages.some((message) => message.source === 'history')
          if (historyLeft) expect(total).toBeLessThanOrEqual(budget)
          // Everything that is not history survives, in order.
          expect(context.messages.filter((message) => message.source !== 'history')).toEqual(
            messages.filter((message) => message.source !== 'history'),
          )
          // Kept history is a suffix of whole turns: the cut messages are the oldest ones.
          const historyBefore = messages.filter((message) => message.source === 'history')
          const historyAfter = context.messages.filter((message) => message.source === 'history')
          expect(historyAfter).toEqual(historyBefore.slice(historyBefore.length - historyAfter.length))
          if (historyAfter.length > 0 && historyAfter.length < historyBefore.length)
            expect(historyAfter[0]!.role).toBe('user')
          // The limiter counts every message once.
          for (const message of messages) expect(counted.get(message) ?? 0).toBeLessThanOrEqual(2)
        },
      ),
      { numRuns: 300 },
    )
  })

  it('counts each message exactly once per run', () => {
    const { counter, counted } = createCountingCounter()
    const messages: ChatMessage[] = Array.from({ length: 10 }, (_, index) => ({
      role: index % 2 === 0 ? 'user' : 'assistant',
      content: 'abcdefghij',
      source: 'history',
    }))
    tokenLimiter.execute(createContext(messages, 50, counter), { safety_margin: 0 })
    expect([...counted.values()]).toEqual(Array(10).fill(1))
  })

  it('cuts whole turns from the oldest and logs what it cut', () => {
    const { counter } = createCountingCounter()
    const turn = (id: string): ChatMessage[] => [
      { role: 'user', content: 'u'.repeat(10), source: 'history', meta: { turn: id } },
      { role: 'assistant', content: 'a'.repeat(10), source: 'history', meta: { turn: id } },
    ]
    const messages: ChatMessage[] = [
      { role: 'system', content: 's'.repeat(10), source: 'system' },
      ...turn('1'),
      ...turn('2'),
      ...turn('3'),
      { role: 'user', content: 'i'.repeat(10), source: 'input' },
    ]
    const context = createContext(messages, 10 + 50, counter)
    tokenLimiter.execute(context, { safety_margin: 0 })
    expect(context.messages.map((message) => message.meta?.turn ?? message.source)).toEqual([
      'system',
      '3',
      '3',
      'input',
    ])
    expect(context.logs[0]).toMatchObject({ processorId: 'token-limiter', level: 'info' })
    expect(context.logs[0]!.message).toContain('cut the oldest 2 history turns (4 messages)')
  })

  it('budget is the window minus max_tokens minus the margin, capped by max_context_tokens', () => {
    const context = { capabilities: { contextWindow: 8000, maxTokens: 1000 } } as PipelineContext
    expect(computeTokenBudget(context, 256)).toBe(6744)
    expect(computeTokenBudget(context, 0, 4000)).toBe(3000)
  })
})
