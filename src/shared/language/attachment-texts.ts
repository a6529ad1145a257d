/**
 * The placeholders charpipe writes in place of an attachment a model cannot take (an image for a
 * model without vision, a voice message, a file), and the prompt the image describer is asked with,
 * per language. The placeholder is what the model reads and what the history keeps, so it is in the
 * character's language. The Chinese texts are the ones charpipe always wrote.
 */
import type { Language } from './detect-text-language.js'

export interface AttachmentTexts {
  /** `[图片:…]`: an image as text (`inReplyTo`: an image of the message being replied to). */
  image: (text: string, inReplyTo?: boolean) => string
  /** The model has no vision and the image was not described (the asset resolver's last resort). */
  cannotSeeImages: string
  /** No vision and no `llm.vision_describer`. */
  noImageDescriber: string
  unreadable: string
  notAnImage: string
  describeFailed: string
  /** The default `llm.vision_describer.prompt`. */
  describerPrompt: string
  /** `[语音:…]`: a recording as its transcript, or as why there is none. */
  recording: (text: string) => string
  noTranscriber: string
  transcribeFailed: string
  /** A text file read into the message. */
  file: (name: string, text: string) => string
  fileUnreadable: (name: string) => string
  fileNotText: (name: string) => string
  /** A file nothing read (its processor is off). */
  fileNotRead: (name: string) => string
}

const zh: AttachmentTexts = {
  image: (text, inReplyTo) => `[${inReplyTo ? '回复图片' : '图片'}:${text}]`,
  cannotSeeImages: '当前模型看不到图片',
  noImageDescriber: '当前模型看不到图片，且未配置图片描述',
  unreadable: '无法读取',
  notAnImage: '不是图片',
  describeFailed: '描述失败',
  describerPrompt:
    '请用一两句简短的中文描述这张图片：画面里有什么、在做什么、有没有文字。只写描述，不要评论，不要提问。',
  recording: (text) => `[语音:${text}]`,
  noTranscriber: '未配置语音转写',
  transcribeFailed: '转写失败',
  file: (name, text) => `[文件:${name}]\n${text}\n[/文件]`,
  fileUnreadable: (name) => `[文件:${name}（无法读取）]`,
  fileNotText: (name) => `[文件:${name}（非文本文件，未读取）]`,
  fileNotRead: (name) => `[文件:${name}（未读取）]`,
}

const en: AttachmentTexts = {
  image: (text, inReplyTo) => `[${inReplyTo ? 'Replied image' : 'Image'}: ${text}]`,
  cannotSeeImages: 'the current model cannot see images',
  noImageDescriber: 'the current model cannot see images, and no image describer is configured',
  unreadable: 'could not be read',
  notAnImage: 'not an image',
  describeFailed: 'description failed',
  describerPrompt:
    'Describe this image in one or two short sentences in English: what is in it, what is happening, and any text it shows. Only describe it: no comments, no questions.',
  recording: (text) => `[Voice: ${text}]`,
  noTranscriber: 'no speech transcription is configured',
  transcribeFailed: 'transcription failed',
  file: (name, text) => `[File: ${name}]\n${text}\n[/File]`,
  fileUnreadable: (name) => `[File: ${name} (could not be read)]`,
  fileNotText: (name) => `[File: ${name} (not a text file, not read)]`,
  fileNotRead: (name) => `[File: ${name} (not read)]`,
}

const textsByLanguage: Record<Language, AttachmentTexts> = { zh, en }

export function readAttachmentTexts(language: Language): AttachmentTexts {
  return textsByLanguage[language]
}
