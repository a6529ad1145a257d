/**
 * asset-resolver (10000, seed 003 §4.2): the last step. Image references still in the messages
 * become what the model accepts: local files (inside `assets.dirs` only, within `assets.max_bytes`,
 * type sniffed from the bytes) become `data:` URIs; `https:` URLs and `data:` URIs pass through.
 * For a model without vision, and for files nothing has read, a text placeholder is left instead,
 * in the character's language.
 */
import {
  type AttachmentTexts,
  readAttachmentTexts,
  resolveCharacterLanguage,
} from '../../shared/language/index.js'
import type { ChatMessage, ContentPart, ImagePart } from '../../shared/messages.js'
import { readLocalAsset } from '../assets/read-local-asset.js'
import { markAttachmentRefused } from '../refused-attachments.js'
import type { ContextProcessor, PipelineContext } from '../types.js'

const acceptedImageTypes = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp'])

function logWarning(context: PipelineContext, message: string): void {
  context.logs.push({ processorId: 'asset-resolver', level: 'warn', message })
  context.services.logger.warn({ processor: 'asset-resolver' }, message)
}

function checkDataUri(url: string, maxBytes: number): string | undefined {
  const match = /^data:([^;,]+)(;base64)?,/.exec(url)
  if (!match) return 'is not a valid data: URI'
  if (!acceptedImageTypes.has(match[1]!)) return `has type ${match[1]}, not an accepted image type`
  const payload = url.length - match[0].length
  const bytes = match[2] ? Math.floor((payload * 3) / 4) : payload
  if (bytes > maxBytes) return `is ${bytes} bytes, over assets.max_bytes (${maxBytes})`
  return undefined
}

async function resolveImage(
  context: PipelineContext,
  part: ImagePart,
  texts: AttachmentTexts,
): Promise<ContentPart> {
  const placeholder = (text: string): ContentPart => ({
    type: 'text',
    text: texts.image(text, part.inReplyTo),
  })
  if (!context.capabilities.vision) return placeholder(texts.cannotSeeImages)
  const maxBytes = context.config.assets.max_bytes
  if (part.url) {
    if (/^https?:\/\//i.test(part.url)) return part
    const problem = part.url.startsWith('data:')
      ? checkDataUri(part.url, maxBytes)
      : 'has an unsupported scheme'
    if (!problem) return part
    logWarning(context, `image ${part.url.slice(0, 40)}… refused: it ${problem}`)
    markAttachmentRefused(context, part)
    return placeholder(texts.unreadable)
  }
  const result = await readLocalAsset({
    reference: part.assetRef ?? '',
    dirs: context.config.assets.dirs,
    maxBytes,
  })
  if (!result.ok) {
    logWarning(context, result.reason)
    markAttachmentRefused(context, part)
    return placeholder(texts.unreadable)
  }
  if (!result.mediaType || !acceptedImageTypes.has(result.mediaType)) {
    logWarning(
      context,
      `local file "${part.assetRef}" refused: its bytes are not a PNG, JPEG, GIF or WebP image`,
    )
    markAttachmentRefused(context, part)
    return placeholder(texts.notAnImage)
  }
  context.logs.push({
    processorId: 'asset-resolver',
    level: 'debug',
    message: `inlined "${part.assetRef}" as ${result.mediaType} (${result.bytes.length} bytes)`,
  })
  return {
    type: 'image',
    mediaType: result.mediaType,
    url: `data:${result.mediaType};base64,${result.bytes.toString('base64')}`,
    ...(part.inReplyTo ? { inReplyTo: true } : {}),
  }
}

async function resolveParts(context: PipelineContext, message: ChatMessage): Promise<void> {
  if (typeof message.content === 'string') return
  if (message.content.every((part) => part.type === 'text')) return
  const texts = readAttachmentTexts(resolveCharacterLanguage(context.character))
  const parts: ContentPart[] = []
  for (const part of message.content) {
    if (part.type === 'image') parts.push(await resolveImage(context, part, texts))
    else if (part.type === 'file') {
      logWarning(context, `file "${part.name ?? part.assetRef}" was not read into the prompt; left out`)
      parts.push({ type: 'text', text: texts.fileNotRead(part.name ?? part.assetRef) })
    } else parts.push(part)
  }
  message.content = parts
}

export const assetResolver: ContextProcessor = {
  id: 'asset-resolver',
  name: '资源解析器',
  description:
    'Last step: local images (inside assets.dirs) become data: URIs; URLs pass through; placeholders for what the model cannot take.',
  priority: 10_000,
  defaultEnabled: true,
  // No options of its own besides enabled and priority.
  configFields: [],
  async execute(context) {
    for (const message of context.messages) await resolveParts(context, message)
  },
}
