/**
 * An in-process provider for latency benches: it streams the given chunks with a pause before each
 * and stamps, per call, when it yielded each chunk that holds a sentence terminator, so a bench can
 * subtract those stamps from the times its `llm_sentence` events arrive.
 */
import { performance } from 'node:perf_hooks'
import { sleepWithSignal } from '../../src/providers/create-resilient-provider.js'
import type { ChatProvider, ProviderEvent } from '../../src/providers/types.js'

export interface TimedProviderOptions {
  chunks: string[]
  /** Pause before each chunk. */
  delayMs: number
  /** After the last chunk, wait (for interrupt benches) instead of finishing. */
  hang?: boolean
}

const terminator = /[。！？]/

export function createTimedProvider(options: TimedProviderOptions) {
  const stamps: number[][] = []
  const provider: ChatProvider = {
    name: 'fake',
    model: 'fake',
    async *streamChat(_request, streamOptions = {}): AsyncGenerator<ProviderEvent> {
      const writes: number[] = []
      stamps.push(writes)
      const sleep = (ms: number) => sleepWithSignal(ms, streamOptions.signal)
      for (const text of options.chunks) {
        await sleep(options.delayMs)
        if (terminator.test(text)) writes.push(performance.now())
        yield { type: 'text-delta', text }
      }
      if (options.hang) await sleep(3_600_000)
      yield { type: 'finish', reason: 'stop' }
    },
  }
  return { provider, stamps }
}
