/**
 * attachment-text (250): text files are read into their message (from `assets.dirs` only, within
 * `assets.max_bytes`, UTF-8 only) so the limiter counts them. Images stay native parts for vision
 * models; for the rest the image describer turns them into `[图片:描述]` (`[回复图片:描述]` for an
 * image being replied to), or a clear placeholder says that the model cannot see it. Image URLs go
 * to the describer as they are; only a describer that cannot take URLs gets the bytes, fetched here.
 * Recordings (voice messages, videos) go to the transcriber and come back as `[语音:转写]`. The
 * placeholders are in the character's language (`[Image: …]`, `[Voice: …]`, `[File: …]` in English).
 */
import { basename } from 'node:path'
import {
  type AttachmentTexts,
  readAttachmentTexts,
  resolveCharacterLanguage,
} from '../../shared/language/index.js'
import type { ChatMessage, ContentPart } from '../../shared/messages.js'
import { createDescriptionCache, hashImage } from '../assets/create-description-cache.js'
import { decodeTextFile } from '../assets/decode-text-file.js'
import { describeImagePart } from '../assets/describe-image-part.js'
import { type ReadLocalAssetResult, readLocalAsset } from '../assets/read-local-asset.js'
import { sniffMediaType } from '../assets/sniff-media-type.js'
import { markAttachmentRefused } from '../refused-attachments.js'
import type { ContextProcessor, PipelineContext } from '../types.js'
import { readBoolean } from './read-settings.js'

function logWarning(context: PipelineContext, message: string): void {
  context.logs.push({ processorId: 'attachment-text', level: 'warn', message })
  context.services.logger.warn({ processor: 'attachment-text' }, message)
}

// Transcripts of recordings, keyed by the SHA-256 of their bytes: a voice message comes back with
// its message every turn and is transcribed once. About 2 MB of transcripts.
const transcriptCache = createDescriptionCache(1_000_000)

function isRecording(mediaType: string | undefined): mediaType is string {
  return mediaType !== undefined && (mediaType.startsWith('audio/') || mediaType.startsWith('video/'))
}

/**
 * A voice message (or the sound of a video, which OpenAI-compatible endpoints take as it is) as
 * `[语音:转写]`. A failure costs only this attachment: a placeholder and a log line.
 */
async function transcribeRecording(
  context: PipelineContext,
  audio: { bytes: Buffer; mediaType: string; name: string },
  texts: AttachmentTexts,
): Promise<string> {
  const transcriber = context.services.audioTranscriber
  if (!transcriber) {
    logWarning(context, `recording "${audio.name}" not transcribed: llm.transcriber is not configured`)
    return texts.recording(texts.noTranscriber)
  }
  const key = hashImage(audio.bytes)
  const cached = transcriptCache.get(key)
  if (cached !== undefined) return texts.recording(cached)
  try {
    const transcript = (
      await transcriber.transcribe(
        { bytes: audio.bytes, name: basename(audio.name), mediaType: audio.mediaType },
        { signal: context.signal },
      )
    ).trim()
    transcriptCache.set(key, transcript)
    return texts.recording(transcript)
  } catch (error) {
    logWarning(
      context,
      `transcribing "${audio.name}" failed: ${error instanceof Error ? error.message : String(error)}`,
    )
    return texts.recording(texts.transcribeFailed)
  }
}

/** File extensions the transcription endpoint reads the container from, by sniffed type. */
const recordingExtensions: Record<string, string> = {
  'audio/wav': 'wav',
  'audio/ogg': 'ogg',
  'audio/flac': 'flac',
  'audio/mpeg': 'mp3',
  'audio/mp4': 'm4a',
  'video/mp4': 'mp4',
  'video/webm': 'webm',
}

/**
 * A file given inline as a `data:` URI (a voice message a program holds in memory): decoded within
 * `assets.max_bytes` and typed by its bytes. Only recordings are accepted this way.
 */
function readDataUriFile(reference: string, maxBytes: number): ReadLocalAssetResult {
  const comma = reference.indexOf(',')
  const header = comma < 0 ? '' : reference.slice(0, comma)
  if (!header.endsWith(';base64')) return { ok: false, reason: 'a data: URI file must be base64' }
  if (Math.floor(((reference.length - comma - 1) * 3) / 4) > maxBytes) {
    return { ok: false, reason: `a data: URI file is over assets.max_bytes (${maxBytes})` }
  }
  const bytes = Buffer.from(reference.slice(comma + 1), 'base64')
  const mediaType = sniffMediaType(bytes)
  if (!isRecording(mediaType)) return { ok: false, reason: 'a data: URI file must hold a recording' }
  return { ok: true, bytes, mediaType, path: `recording.${recordingExtensions[mediaType] ?? 'bin'}` }
}

async function readFilePart(
  context: PipelineContext,
  part: Extract<ContentPart, { type: 'file' }>,
  texts: AttachmentTexts,
) {
  const inline = part.assetRef.startsWith('data:')
  const result = inline
    ? readDataUriFile(part.assetRef, context.config.assets.max_bytes)
    : await readLocalAsset({
        reference: part.assetRef,
        dirs: context.config.assets.dirs,
        maxBytes: context.config.assets.max_bytes,
      })
  // Never the data URI itself in the prompt or the log.
  const name = inline ? (result.ok ? result.path : 'data:…') : (part.name ?? part.assetRef)
  if (!result.ok) {
    logWarning(context, result.reason)
    markAttachmentRefused(context, part)
    return texts.fileUnreadable(name)
  }
  if (isRecording(result.mediaType)) {
    return transcribeRecording(context, { bytes: result.bytes, mediaType: result.mediaType, name }, texts)
  }
  const text = decodeTextFile(result.bytes)
  if (text === undefined) {
    logWarning(context, `file "${name}" is not UTF-8 text; left out of the prompt`)
    markAttachmentRefused(context, part)
    return texts.fileNotText(name)
  }
  return texts.file(name, text)
}

async function convertParts(context: PipelineContext, message: ChatMessage, describe: boolean) {
  if (typeof message.content === 'string') return
  const language = resolveCharacterLanguage(context.character)
  const texts = readAttachmentTexts(language)
  const parts: ContentPart[] = []
  let changed = false
  for (const part of message.content) {
    if (part.type === 'file') {
      parts.push({ type: 'text', text: await readFilePart(context, part, texts) })
      changed = true
    } else if (part.type === 'image' && describe) {
      parts.push({
        type: 'text',
        text: await describeImagePart(part, {
          describer: context.services.imageDescriber,
          assets: context.config.assets,
          signal: context.signal,
          warn: (text) => logWarning(context, text),
          refuse: (refused) => markAttachmentRefused(context, refused),
          language,
        }),
      })
      changed = true
    } else {
      parts.push(part)
    }
  }
  if (changed) message.content = parts
}

export const attachmentText: ContextProcessor = {
  id: 'attachment-text',
  name: '附件文本提取',
  description:
    "Reads text attachments into the prompt; describes images for models without vision ([图片:描述]); transcribes recordings ([语音:转写]); placeholders in the character's language.",
  priority: 250,
  defaultEnabled: true,
  configFields: [
    {
      key: 'describe_images',
      label: 'Describe images for non-vision models',
      type: 'boolean',
      default: true,
    },
  ],
  async execute(context, settings) {
    const describe = !context.capabilities.vision && readBoolean(settings, 'describe_images', true)
    // Most messages are plain text: no await (and no promise) for them.
    for (const message of context.messages) {
      if (typeof message.content !== 'string') await convertParts(context, message, describe)
    }
  },
}
