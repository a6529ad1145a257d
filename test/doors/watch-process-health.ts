/**
 * What the fuzzed doors hold the process to while a door is fed generated inputs: its event loop
 * is never blocked long (the longest delay `perf_hooks.monitorEventLoopDelay` saw: a safety bound
 * against a parser that spins on one input, not a measure of a feature's speed) and no promise is
 * rejected unhandled.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks'

export interface ProcessHealth {
  /** The longest the event loop was held, in milliseconds, since the watch began. */
  maxDelayMs: number
  unhandledRejections: unknown[]
}

export interface ProcessHealthWatch {
  /** Ends the watch and tells what it saw. */
  stop(): ProcessHealth
}

export function watchProcessHealth(): ProcessHealthWatch {
  const delay = monitorEventLoopDelay({ resolution: 10 })
  const unhandledRejections: unknown[] = []
  const onRejection = (reason: unknown) => {
    unhandledRejections.push(reason)
  }
  process.on('unhandledRejection', onRejection)
  delay.enable()
  return {
    stop() {
      delay.disable()
      process.off('unhandledRejection', onRejection)
      return { maxDelayMs: delay.max / 1e6, unhandledRejections }
    },
  }
}
