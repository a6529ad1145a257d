/**
 * Attachment references the pipeline could not use (a `file:` URL of another host, a missing or
 * oversized file, bytes that are not an image, a data URI of the wrong type). Each became a
 * placeholder in its message; the processors note its reference here, on `sharedData`, so the
 * engine stores the turn without it and the history never replays it into later turns.
 */
import type { ContentPart } from '../shared/messages.js'
import type { PipelineContext } from './types.js'

/** sharedData key: `Set<string>` of the references refused during this build. */
const refusedAttachmentsKey = 'attachments.refused'

/** The reference an attachment part was made from (see `createAttachmentPart`). */
function referenceOf(part: ContentPart): string | undefined {
  if (part.type === 'image') return part.url ?? part.assetRef
  if (part.type === 'file') return part.assetRef
  return undefined
}

export function markAttachmentRefused(context: PipelineContext, part: ContentPart): void {
  const reference = referenceOf(part)
  if (reference === undefined) return
  let refused = context.sharedData.get(refusedAttachmentsKey) as Set<string> | undefined
  if (!refused) {
    refused = new Set()
    context.sharedData.set(refusedAttachmentsKey, refused)
  }
  refused.add(reference)
}

export function readRefusedAttachments(sharedData: ReadonlyMap<string, unknown>): ReadonlySet<string> {
  return (sharedData.get(refusedAttachmentsKey) as Set<string> | undefined) ?? new Set()
}
