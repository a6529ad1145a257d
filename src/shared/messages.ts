/**
 * The intermediate message format that flows through the context pipeline and into the providers.
 * Attachments stay references until the asset resolver turns them into data the model accepts, and
 * every message keeps a `source` tag so the token limiter and the preview know where it came from.
 */
export type MessageRole = 'system' | 'user' | 'assistant' | 'tool'

export type MessageSource =
  | 'system'
  | 'persona'
  | 'memory'
  | 'knowledge'
  | 'injected'
  | 'depth-injection'
  | 'anchor'
  | 'lorebook'
  | 'history'
  | 'input'
  | 'tool'
  | 'plugin'

export interface TextPart {
  type: 'text'
  text: string
}

/**
 * An image. Before the asset resolver runs it may be a reference (`assetRef`: a local path or an
 * upload id); afterwards `url` is an `https:` URL or a `data:` URI.
 */
export interface ImagePart {
  type: 'image'
  url?: string
  assetRef?: string
  mediaType?: string
  /**
   * Set when the image belongs to a message being replied to (rendered as `[回复图片:…]`, or
   * `[Replied image: …]` for an English character).
   */
  inReplyTo?: boolean
}

/** A non-image file (text, PDF, …) referenced by path; text files are read by `attachment-text`. */
export interface FilePart {
  type: 'file'
  assetRef: string
  mediaType?: string
  name?: string
}

export type ContentPart = TextPart | ImagePart | FilePart

export interface ToolCall {
  id: string
  name: string
  /** Parsed JSON arguments. */
  arguments: unknown
}

export interface ChatMessage {
  role: MessageRole
  content: string | ContentPart[]
  /** Where the message came from; absent on messages built by callers outside the pipeline. */
  source?: MessageSource
  /** Assistant messages that asked for tools. */
  toolCalls?: ToolCall[]
  /** Tool messages: the call they answer. */
  toolCallId?: string
  /** Free metadata for processors (e.g. the stored message id, the turn it belongs to). */
  meta?: Record<string, unknown>
}

export interface ToolDefinition {
  name: string
  description: string
  /** JSON Schema of the arguments object. */
  parameters: Record<string, unknown>
}

/** The text of a message, with non-text parts left out. */
export function messageText(message: Pick<ChatMessage, 'content'>): string {
  if (typeof message.content === 'string') return message.content
  let text = ''
  for (const part of message.content) if (part.type === 'text') text += part.text
  return text
}
