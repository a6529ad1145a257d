/**
 * A provider that plays one scripted step per request (text deltas, tool calls, reasoning, usage, an
 * error, a hang) and honours the abort signal: the model side of a turn test, in process.
 */
import { sleepWithSignal } from '../providers/create-resilient-provider.js'
import type { ChatProvider, ChatRequest, ProviderEvent, Usage } from '../providers/types.js'

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
