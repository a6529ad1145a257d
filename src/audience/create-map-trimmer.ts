/**
 * Keeps a Map's most recent `limit` entries (Maps iterate oldest first), in constant time per
 * entry dropped.
 *
 * Why not `map.delete(map.keys().next().value)` each time: V8 leaves a deleted entry as a hole in
 * the Map's table until it is rebuilt, and a fresh iterator steps over every hole before the first
 * live entry. A Map used as a window (add at the end, drop at the front) keeps thousands of holes
 * at its front, so each drop cost ~20 µs at 10,000 entries. One iterator kept for the Map's life
 * has stepped over those holes once: a Map iterator stays valid while the Map changes (entries
 * added after it are still reached, deleted ones skipped), and every entry before it was dropped
 * here, so its next entry is always the oldest one left.
 */
export interface CreateMapTrimmerOptions<K> {
  map: Map<K, unknown>
  /** Entries kept. */
  limit: number
}

export function createMapTrimmer<K>(options: CreateMapTrimmerOptions<K>): () => void {
  const { map } = options
  const limit = Math.max(0, options.limit)
  let oldest = map.keys()
  return () => {
    while (map.size > limit) {
      const next = oldest.next()
      // Only reached if the Map was cleared behind its back: start again from its front.
      if (next.done) oldest = map.keys()
      else map.delete(next.value)
    }
  }
}
