/** The index terms of a stored item, column by column, as every store writes them. */
import type { SliceQueue } from '../../shared/create-slice-queue.js'
import type { IndexedFields } from './memory-term-index.js'
import { hasSegmentedText, segmentText } from './segment-text.js'

export function segmentIndexedFields(row: {
  speaker: string | null
  text: string
  context: string
}): IndexedFields {
  return {
    speaker: segmentText(row.speaker ?? ''),
    body: segmentText(row.text),
    context: segmentText(row.context),
  }
}

/**
 * Segments each text as a slice of the store's queue (a later turn of the event loop, shared with
 * the other sessions' writes), before a write that will index them: the write's transaction then
 * finds their terms in `segmentText`'s cache, instead of segmenting them all in one synchronous
 * stretch while other sessions' frames wait. Only a cost moved ahead: what the write indexes is
 * what it reads in its transaction, segmented again if it changed.
 */
export async function segmentAhead(
  texts: readonly (string | null | undefined)[],
  slices: SliceQueue,
): Promise<void> {
  for (const text of texts) {
    if (!text || hasSegmentedText(text)) continue
    await slices.run(() => segmentText(text))
  }
}
