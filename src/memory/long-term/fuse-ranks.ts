/**
 * Reciprocal rank fusion: each list contributes 1 / (offset + rank) per item. It needs no score
 * calibration between BM25 and cosine similarity, which live on unrelated scales.
 */
export function fuseRanks<Key>(lists: readonly (readonly Key[])[], offset = 60): Map<Key, number> {
  const fused = new Map<Key, number>()
  for (const list of lists) {
    list.forEach((key, index) => {
      fused.set(key, (fused.get(key) ?? 0) + 1 / (offset + index + 1))
    })
  }
  return fused
}
