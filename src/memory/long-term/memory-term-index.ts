/**
 * One partition of the in-process keyword index: the memories of one scope, or the knowledge
 * chunks. Term → postings (slot, packed term frequencies per column) in slot order, plus the
 * per-document numbers BM25 needs (row length) and the re-ranking needs (time, body length).
 *
 * A document keeps its slot when it is re-indexed (every add re-indexes the previous memory with
 * its new neighbour as context), so postings stay sorted and an update is a few in-place edits.
 * Slots of deleted documents stay empty until the owner rebuilds the partition.
 */
import { readBodyCount, readSpeakerCount } from './compute-bm25.js'

/** The index terms of one document, column by column (as written to the FTS table). */
export interface IndexedFields {
  speaker: readonly string[]
  body: readonly string[]
  context: readonly string[]
}

/** Documents (by slot) containing one term, and how often in each column. */
export interface TermPostings {
  slots: Int32Array
  /** Packed counts (see `readBodyCount` and its siblings). */
  counts: Int32Array
  size: number
  /** Postings whose speaker count is not 0: a word no speaker's name holds has none. */
  speakerPostings: number
}

/**
 * Heap bytes of an empty partition (the instance, its maps, five small typed arrays with their
 * buffers) and of one more term beyond its characters and postings (the map entry, the postings
 * object, two typed arrays with their buffers): measured with `--expose-gc` over 3,000 partitions,
 * Node 20. Counting less let `memory.index_max_mb` hold twice its budget and more.
 */
const partitionBaseBytes = 2_000
// The speaker postings count added 8 bytes a term (measured the same way).
const termEntryBytes = 458
/** A `slotBySeq` entry. */
const slotEntryBytes = 40

const speakerMask = 0x3ff
const columnMask = 0x7ff

function growInt32(array: Int32Array, size: number): Int32Array {
  if (size <= array.length) return array
  const grown = new Int32Array(Math.max(size, array.length * 2, 4))
  grown.set(array)
  return grown
}

function growFloat64(array: Float64Array, size: number): Float64Array {
  if (size <= array.length) return array
  const grown = new Float64Array(Math.max(size, array.length * 2, 16))
  grown.set(array)
  return grown
}

/** Where `slot` is (or would go) in the sorted `slots[0..size)`. */
function findPosition(slots: Int32Array, size: number, slot: number): number {
  // Updates nearly always touch the newest documents: check the end before searching.
  if (size === 0 || (slots[size - 1] as number) < slot) return size
  let low = 0
  let high = size
  while (low < high) {
    const middle = (low + high) >>> 1
    if ((slots[middle] as number) < slot) low = middle + 1
    else high = middle
  }
  return low
}

/** Each distinct term of a document with its packed counts. */
function countTerms(fields: IndexedFields): Map<string, number> {
  const counts = new Map<string, number>()
  addColumn(counts, fields.speaker, 0, speakerMask)
  addColumn(counts, fields.body, 10, columnMask)
  addColumn(counts, fields.context, 21, columnMask)
  return counts
}

function addColumn(counts: Map<string, number>, terms: readonly string[], shift: number, mask: number): void {
  for (const term of terms) {
    const packed = counts.get(term) ?? 0
    // A count past its field's width (a word 2,048 times in one snippet) saturates.
    if (((packed >>> shift) & mask) < mask) counts.set(term, (packed + (1 << shift)) | 0)
  }
}

/**
 * The length BM25 normalises by: every term of every column, plus one for the scope-key column
 * the FTS table also holds, as FTS5's bm25() counts it over that table.
 */
export function measureIndexedLength(fields: IndexedFields): number {
  return 1 + fields.speaker.length + fields.body.length + fields.context.length
}

export class MemoryTermIndex {
  /** Memories decay with age; knowledge chunks do not. */
  readonly kind: 'memory' | 'knowledge'
  /** Live documents. */
  documentCount = 0
  /** Sum of the live documents' lengths. */
  totalLength = 0
  /** Sum of the live documents' own index terms (their body, without speaker and neighbours). */
  totalBodyLength = 0
  /** Slots handed out, live or empty; slot numbers are below this. */
  slotCount = 0
  /** Slots whose document was removed and not put back. */
  emptySlots = 0
  seqs: Float64Array = new Float64Array(16)
  times: Float64Array = new Float64Array(16)
  lengths: Float64Array = new Float64Array(16)
  bodyLengths: Int32Array = new Int32Array(16)
  readonly terms = new Map<string, TermPostings>()
  private readonly slotBySeq = new Map<number, number>()
  private live: Int32Array = new Int32Array(16)
  /** Kept up to date by every change, so a write's cost to the budget is known without a scan. */
  private heldBytes = partitionBaseBytes

  constructor(kind: 'memory' | 'knowledge') {
    this.kind = kind
  }

  /** Adds a document, or puts back one removed before (it keeps its slot). */
  put(seq: number, time: number, fields: IndexedFields): void {
    let slot = this.slotBySeq.get(seq)
    if (slot !== undefined && this.live[slot] === 1) {
      throw new Error(`keyword index: document ${seq} is already indexed; remove it first`)
    }
    const appended = slot === undefined
    if (slot === undefined) {
      slot = this.slotCount++
      this.slotBySeq.set(seq, slot)
      this.heldBytes += slotEntryBytes
      if (this.slotCount > this.seqs.length) this.growSlotArrays()
    } else {
      this.emptySlots--
    }
    const length = measureIndexedLength(fields)
    this.seqs[slot] = seq
    this.times[slot] = time
    this.lengths[slot] = length
    this.bodyLengths[slot] = fields.body.length
    this.live[slot] = 1
    this.documentCount++
    this.totalLength += length
    this.totalBodyLength += fields.body.length
    if (appended) {
      // The newest slot goes at the end of every list: one map lookup per term, no counting map.
      this.appendColumn(fields.speaker, slot, 0, speakerMask)
      this.appendColumn(fields.body, slot, 10, columnMask)
      this.appendColumn(fields.context, slot, 21, columnMask)
      return
    }
    for (const [term, packed] of countTerms(fields)) this.insertPosting(term, slot, packed)
  }

  /** Removes a document; `fields` are the terms it was indexed with. */
  remove(seq: number, fields: IndexedFields): void {
    const slot = this.slotBySeq.get(seq)
    if (slot === undefined || this.live[slot] !== 1) return
    for (const term of countTerms(fields).keys()) this.removePosting(term, slot)
    this.live[slot] = 0
    this.emptySlots++
    this.documentCount--
    this.totalLength -= this.lengths[slot] as number
    this.totalBodyLength -= this.bodyLengths[slot] as number
  }

  /** The live slot of a stored row, if this partition holds it. */
  findSlot(seq: number): number | undefined {
    const slot = this.slotBySeq.get(seq)
    return slot !== undefined && this.live[slot] === 1 ? slot : undefined
  }

  /** Whether the document in `slot` has `term` among its own words (not speaker or context). */
  hasInBody(term: string, slot: number): boolean {
    return readBodyCount(this.readCounts(term, slot)) > 0
  }

  /** Whether the document in `slot` was said by a speaker whose name has `term`. */
  hasInSpeaker(term: string, slot: number): boolean {
    return readSpeakerCount(this.readCounts(term, slot)) > 0
  }

  /** The packed counts of `term` in the document in `slot` (0 when it lacks the term). */
  readCounts(term: string, slot: number): number {
    const postings = this.terms.get(term)
    if (!postings) return 0
    const position = findPosition(postings.slots, postings.size, slot)
    if (position >= postings.size || postings.slots[position] !== slot) return 0
    return postings.counts[position] as number
  }

  /** Whether some document of this partition has `term` in its speaker's name. */
  hasSpeakerPostings(term: string): boolean {
    return (this.terms.get(term)?.speakerPostings ?? 0) > 0
  }

  /** Documents containing `term` in any column. */
  countDocuments(term: string): number {
    return this.terms.get(term)?.size ?? 0
  }

  /** Estimated heap bytes the partition holds: its typed arrays, plus the objects around them. */
  measureBytes(): number {
    return this.heldBytes
  }

  private measureSlotArrays(): number {
    const { seqs, times, lengths, bodyLengths, live } = this
    return seqs.byteLength + times.byteLength + lengths.byteLength + bodyLengths.byteLength + live.byteLength
  }

  private growSlotArrays(): void {
    const before = this.measureSlotArrays()
    this.seqs = growFloat64(this.seqs, this.slotCount)
    this.times = growFloat64(this.times, this.slotCount)
    this.lengths = growFloat64(this.lengths, this.slotCount)
    this.bodyLengths = growInt32(this.bodyLengths, this.slotCount)
    this.live = growInt32(this.live, this.slotCount)
    this.heldBytes += this.measureSlotArrays() - before
  }

  private findOrCreatePostings(term: string): TermPostings {
    let postings = this.terms.get(term)
    if (!postings) {
      postings = { slots: new Int32Array(4), counts: new Int32Array(4), size: 0, speakerPostings: 0 }
      this.terms.set(term, postings)
      this.heldBytes += measureTermBytes(term, postings)
    }
    return postings
  }

  /** Makes room for one more posting, counting what the arrays grew by. */
  private growPostings(postings: TermPostings): void {
    // Both arrays always have the same length; most appends fit.
    if (postings.size < postings.slots.length) return
    const before = postings.slots.byteLength
    postings.slots = growInt32(postings.slots, postings.size + 1)
    postings.counts = growInt32(postings.counts, postings.size + 1)
    this.heldBytes += 2 * (postings.slots.byteLength - before)
  }

  private appendColumn(terms: readonly string[], slot: number, shift: number, mask: number): void {
    for (const term of terms) {
      const postings = this.findOrCreatePostings(term)
      const last = postings.size - 1
      if (last >= 0 && postings.slots[last] === slot) {
        const packed = postings.counts[last] as number
        // A count past its field's width (a word 2,048 times in one snippet) saturates.
        if (((packed >>> shift) & mask) < mask) postings.counts[last] = (packed + (1 << shift)) | 0
        continue
      }
      this.growPostings(postings)
      postings.slots[postings.size] = slot
      postings.counts[postings.size] = 1 << shift
      postings.size++
      // The speaker column is appended first: a later column finds its posting there.
      if (shift === 0) postings.speakerPostings++
    }
  }

  private insertPosting(term: string, slot: number, packed: number): void {
    const postings = this.findOrCreatePostings(term)
    const position = findPosition(postings.slots, postings.size, slot)
    this.growPostings(postings)
    if (position < postings.size) {
      postings.slots.copyWithin(position + 1, position, postings.size)
      postings.counts.copyWithin(position + 1, position, postings.size)
    }
    postings.slots[position] = slot
    postings.counts[position] = packed
    postings.size++
    if (readSpeakerCount(packed) > 0) postings.speakerPostings++
  }

  private removePosting(term: string, slot: number): void {
    const postings = this.terms.get(term)
    if (!postings) return
    const position = findPosition(postings.slots, postings.size, slot)
    if (position >= postings.size || postings.slots[position] !== slot) return
    if (readSpeakerCount(postings.counts[position] as number) > 0) postings.speakerPostings--
    postings.slots.copyWithin(position, position + 1, postings.size)
    postings.counts.copyWithin(position, position + 1, postings.size)
    postings.size--
    if (postings.size > 0) return
    this.terms.delete(term)
    this.heldBytes -= measureTermBytes(term, postings)
  }
}

/** What one term's entry holds: the entry, the term's characters and its postings' arrays. */
function measureTermBytes(term: string, postings: TermPostings): number {
  return termEntryBytes + 2 * term.length + postings.slots.byteLength + postings.counts.byteLength
}
