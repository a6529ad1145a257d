/**
 * The runtimes a reload replaced while turns still ran on them. A reload retires the old runtime;
 * the last of its turns to end takes it back out to release its parts; `close` takes out the rest.
 * The set is private: these three methods are its only writers.
 */
import type { EngineRuntime } from './engine-runtime.js'

export interface RetiredRuntimes {
  /** Keeps `runtime` until its last turn ends. */
  retire(runtime: EngineRuntime): void
  /** Takes `runtime` out when it was retired; true when it was (its parts are the caller's to release). */
  takeOut(runtime: EngineRuntime): boolean
  /** Takes every retired runtime out (on close). */
  takeAll(): EngineRuntime[]
}

export function createRetiredRuntimes(): RetiredRuntimes {
  const retired = new Set<EngineRuntime>()
  return {
    retire: (runtime) => void retired.add(runtime),
    takeOut: (runtime) => retired.delete(runtime),
    takeAll() {
      const all = [...retired]
      retired.clear()
      return all
    },
  }
}
