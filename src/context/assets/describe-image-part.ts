/**
 * An image as text for a model without vision, through the image describer (`llm.vision_describer`):
 * the pipeline's attachment-text processor uses it for images in messages, the tool loop for images
 * in tool results. Image URLs go to the describer as they are; only a describer that cannot take
 * URLs gets the bytes, fetched with the checks of `fetchRemoteImage`. Local references are read
 * from `assets.dirs` only, within `assets.max_bytes`.
 */
import type { CharpipeConfig } from '../../config/schema.js'
import type { ImageDescriber } from '../../shared/image-describer.js'
import { type AttachmentTexts, type Language, readAttachmentTexts } from '../../shared/language/index.js'
import { loadOnFirstUse } from '../../shared/load-on-first-use.js'
import type { ImagePart } from '../../shared/messages.js'
import { createDescriptionCache, hashImage } from './create-description-cache.js'
import { readLocalAsset } from './read-local-asset.js'

export interface DescribeImagePartOptions {
  /** None: a placeholder says that no describer is configured. */
  describer: ImageDescriber | undefined
  assets: Pick<CharpipeConfig['assets'], 'dirs' | 'max_bytes' | 'allow_private_urls'>
  signal?: AbortSignal
  /** A problem worth a log line: an image that cannot be read or described. */
  warn(message: string): void
  /** An image refused (not an image, unreadable, too large). */
  refuse?(part: ImagePart): void
  /** The character's language: the placeholder's words and the describer's default prompt. @default 'zh' */
  language?: Language
}

// The guarded fetch (resolver, http/https, address ranges) loads with the first URL image to describe.
const loadImageFetch = loadOnFirstUse(() => import('./fetch-remote-image.js'))

// Past images come back every turn with their message; describing them once is enough. About
// 2 MB of descriptions, keyed by language and content hash (never by the image itself).
const descriptionCache = createDescriptionCache(1_000_000)

/** A URL image as the describer takes it: as it is, or fetched into a data URI when it needs bytes. */
async function prepareUrlImage(
  options: DescribeImagePartOptions,
  part: ImagePart & { url: string },
  describer: ImageDescriber,
): Promise<ImagePart | undefined> {
  if (!describer.needsImageBytes || !/^https?:/i.test(part.url)) return part
  const { fetchRemoteImage } = await loadImageFetch()
  const fetched = await fetchRemoteImage({
    url: part.url,
    maxBytes: options.assets.max_bytes,
    allowPrivate: options.assets.allow_private_urls,
    ...(options.signal ? { signal: options.signal } : {}),
  })
  if (!fetched.ok) {
    options.warn(fetched.reason)
    return undefined
  }
  return {
    ...part,
    mediaType: fetched.mediaType,
    url: `data:${fetched.mediaType};base64,${fetched.bytes.toString('base64')}`,
  }
}

/** A local image read into a data URI with its content key, or the placeholder word of a refusal. */
async function prepareLocalImage(
  options: DescribeImagePartOptions,
  part: ImagePart,
  texts: AttachmentTexts,
): Promise<{ image: ImagePart; key: string } | { refused: string }> {
  const result = await readLocalAsset({
    reference: part.assetRef ?? '',
    dirs: options.assets.dirs,
    maxBytes: options.assets.max_bytes,
  })
  if (!result.ok) {
    options.warn(result.reason)
    options.refuse?.(part)
    return { refused: texts.unreadable }
  }
  // An image reference is never read as anything else, whatever the file holds.
  if (!result.mediaType?.startsWith('image/')) {
    options.warn(`local file "${part.assetRef}" refused: its bytes are not an image`)
    options.refuse?.(part)
    return { refused: texts.notAnImage }
  }
  const url = `data:${result.mediaType};base64,${result.bytes.toString('base64')}`
  return { image: { ...part, mediaType: result.mediaType, url }, key: hashImage(result.bytes) }
}

/** Bytes a data URI holds, from its length (base64 or not), without decoding it. */
function estimateDataUriBytes(url: string): number {
  const comma = url.indexOf(',')
  const payload = url.length - comma - 1
  return url.slice(0, comma).endsWith(';base64') ? Math.floor((payload * 3) / 4) : payload
}

/**
 * `[图片:描述]` (`[回复图片:描述]` for an image being replied to; `[Image: …]` for an English
 * character) from the describer, described once per image content and language; a placeholder says
 * why when there is no describer, the image is refused or the description fails.
 */
export async function describeImagePart(part: ImagePart, options: DescribeImagePartOptions): Promise<string> {
  const language = options.language ?? 'zh'
  const texts = readAttachmentTexts(language)
  const placeholder = (text: string) => texts.image(text, part.inReplyTo)
  const describer = options.describer
  if (!describer) return placeholder(texts.noImageDescriber)
  let image: ImagePart | undefined
  let key: string
  if (part.url) {
    if (part.url.startsWith('data:') && !/^data:image\//i.test(part.url)) {
      options.warn(`image ${part.url.slice(0, 40)}… refused: not an image data URI`)
      options.refuse?.(part)
      return placeholder(texts.notAnImage)
    }
    const maxBytes = options.assets.max_bytes
    if (part.url.startsWith('data:') && estimateDataUriBytes(part.url) > maxBytes) {
      options.warn(`image ${part.url.slice(0, 40)}… refused: over assets.max_bytes (${maxBytes})`)
      options.refuse?.(part)
      return placeholder(texts.unreadable)
    }
    key = `${language}:${hashImage(part.url)}`
    const cached = descriptionCache.get(key)
    if (cached !== undefined) return placeholder(cached)
    image = await prepareUrlImage(options, part as ImagePart & { url: string }, describer)
  } else {
    const local = await prepareLocalImage(options, part, texts)
    if ('refused' in local) return placeholder(local.refused)
    key = `${language}:${local.key}`
    const cached = descriptionCache.get(key)
    if (cached !== undefined) return placeholder(cached)
    image = local.image
  }
  if (!image?.url) return placeholder(texts.unreadable)
  try {
    const description = (
      await describer.describe(
        { url: image.url, mediaType: image.mediaType },
        { signal: options.signal, language },
      )
    ).trim()
    descriptionCache.set(key, description)
    return placeholder(description)
  } catch (error) {
    options.warn(`image description failed: ${error instanceof Error ? error.message : String(error)}`)
    return placeholder(texts.describeFailed)
  }
}
