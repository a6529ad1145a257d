/**
 * Image descriptions already made, so a past image that comes back with its message every turn is
 * described once. Keys are SHA-256 digests of the image (its bytes, or its URL / data URI when the
 * bytes were never read here), never the image itself: a key costs 64 characters whatever the size
 * of the image. The cache is bounded in characters (keys and descriptions) and drops the least
 * recently used entries first.
 */
import { createHash } from 'node:crypto'

export interface DescriptionCache {
  get(key: string): string | undefined
  set(key: string, description: string): void
  /** Characters held (keys and descriptions), for tests and metrics. */
  readonly size: number
}

/** The cache key of an image given by its bytes or its URL / data URI. */
export function hashImage(content: string | Uint8Array): string {
  return createHash('sha256').update(content).digest('hex')
}

/** @param maxChars characters the cache may hold in all (about two bytes each). */
export function createDescriptionCache(maxChars: number): DescriptionCache {
  const entries = new Map<string, string>()
  let size = 0
  const drop = (key: string) => {
    const description = entries.get(key)
    if (description === undefined) return
    entries.delete(key)
    size -= key.length + description.length
  }
  return {
    get(key) {
      const description = entries.get(key)
      if (description === undefined) return undefined
      // Most recently used last, so the oldest entry is the first one dropped.
      entries.delete(key)
      entries.set(key, description)
      return description
    },
    set(key, description) {
      const cost = key.length + description.length
      drop(key)
      if (cost > maxChars) return
      while (size + cost > maxChars) {
        const oldest = entries.keys().next().value
        if (oldest === undefined) break
        drop(oldest)
      }
      entries.set(key, description)
      size += cost
    },
    get size() {
      return size
    },
  }
}
