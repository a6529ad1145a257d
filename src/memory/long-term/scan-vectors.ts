/**
 * Brute-force nearest neighbours over the vectors stored for a scope and the knowledge base.
 * Vectors are stored unit-length, so cosine similarity is a dot product. A linear scan is fast
 * enough for one character's memories (tens of thousands of vectors) and needs no extension.
 */

/** One stored vector: the item's sequence number and its float32 bytes. */
export interface StoredVector {
  seq: number
  vector: Uint8Array
}

export interface ScanVectorsOptions {
  vector: Float32Array
  limit: number
}

/** Item sequence numbers, most similar first. */
export function scanVectors(rows: Iterable<StoredVector>, options: ScanVectorsOptions): number[] {
  const query = normalizeVector(options.vector)
  const scored: { seq: number; similarity: number }[] = []
  for (const row of rows) {
    const stored = decodeVector(row.vector)
    if (stored.length !== query.length) continue
    let dot = 0
    for (let index = 0; index < stored.length; index++)
      dot += (stored[index] as number) * (query[index] as number)
    scored.push({ seq: row.seq, similarity: dot })
  }
  scored.sort((left, right) => right.similarity - left.similarity)
  return scored.slice(0, options.limit).map((item) => item.seq)
}

/** Unit-length copy (a zero vector stays zero). */
function normalizeVector(vector: Float32Array): Float32Array {
  let norm = 0
  for (const value of vector) norm += value * value
  norm = Math.sqrt(norm)
  return norm > 0 ? vector.map((value) => value / norm) : Float32Array.from(vector)
}

export function encodeVector(vector: Float32Array): Buffer {
  const unit = normalizeVector(vector)
  return Buffer.from(unit.buffer, unit.byteOffset, unit.byteLength)
}

function decodeVector(blob: Uint8Array): Float32Array {
  // Copy: the Buffer's offset inside its pool need not be 4-byte aligned.
  const copy = new Uint8Array(blob)
  return new Float32Array(copy.buffer, 0, copy.byteLength / 4)
}
