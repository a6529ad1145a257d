/**
 * A real memory store whose search can be frozen on command, as a PostgreSQL server that stops
 * answering would leave it: a frozen search never settles until the test answers it late or fails
 * it late. Everything else goes to the store it wraps.
 */
import type { MemoryHit, MemoryStore } from '../../src/memory/types.js'

export interface FreezableMemoryStore extends MemoryStore {
  /** Searches started, frozen or not. */
  readonly searches: number
  /** From now on every search hangs. */
  freeze(): void
  /** Searches answer again; the ones frozen so far stay frozen until `answerFrozen` or `failFrozen`. */
  thaw(): void
  /** The frozen searches answer now, with what the wrapped store finds. */
  answerFrozen(): Promise<void>
  /** The frozen searches fail now (a server that gave up). */
  failFrozen(error: Error): void
}

interface FrozenSearch {
  run(): Promise<MemoryHit[]>
  resolve(hits: MemoryHit[]): void
  reject(error: Error): void
}

export function createFreezableMemoryStore(store: MemoryStore): FreezableMemoryStore {
  let frozen = false
  let searches = 0
  let held: FrozenSearch[] = []
  const takeHeld = () => {
    const taken = held
    held = []
    return taken
  }
  return {
    ...store,
    get searches() {
      return searches
    },
    search(query, options) {
      searches++
      if (!frozen) return store.search(query, options)
      return new Promise<MemoryHit[]>((resolve, reject) => {
        held.push({ run: () => store.search(query, options), resolve, reject })
      })
    },
    freeze() {
      frozen = true
    },
    thaw() {
      frozen = false
    },
    async answerFrozen() {
      for (const search of takeHeld()) search.resolve(await search.run())
    },
    failFrozen(error) {
      for (const search of takeHeld()) search.reject(error)
    },
  }
}
