/** The index terms of a stored item, column by column, as every store writes them. */
import type { IndexedFields } from './memory-term-index.js'
import { segmentText } from './segment-text.js'

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
