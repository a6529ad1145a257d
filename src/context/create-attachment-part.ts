/**
 * Turns an attachment reference (URL, `data:` URI or local path) into a content part. Remote URLs
 * and data URIs go in `url`; local paths stay an `assetRef` for the asset resolver to read safely.
 */
import { basename } from 'node:path'
import type { FilePart, ImagePart } from '../shared/messages.js'

const imageExtensions = /\.(png|jpe?g|gif|webp|bmp|avif|heic)$/i

/** Whether a reference points at an image (by scheme, data URI type or file extension). */
function isImageReference(reference: string): boolean {
  if (reference.startsWith('data:')) return reference.startsWith('data:image/')
  return imageExtensions.test(reference.split(/[?#]/)[0] ?? '')
}

function isRemoteOrInline(reference: string): boolean {
  return /^(https?:|data:)/i.test(reference)
}

/**
 * @param kind `image` for the input's `images`, `file` for its `files`, `auto` to guess from the
 *   reference (stored history attachments).
 */
export function createAttachmentPart(
  reference: string,
  kind: 'image' | 'file' | 'auto',
): ImagePart | FilePart {
  const isImage =
    kind === 'image' || (kind === 'auto' && (isImageReference(reference) || /^https?:/i.test(reference)))
  if (isImage) {
    return isRemoteOrInline(reference)
      ? { type: 'image', url: reference }
      : { type: 'image', assetRef: reference }
  }
  return { type: 'file', assetRef: reference, name: basename(reference) }
}
