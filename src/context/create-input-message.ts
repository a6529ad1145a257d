/**
 * The current user input as the first message of a fresh context; processors place everything
 * else around it. Images and files stay references until the attachment and asset processors run.
 */
import type { ChatMessage, ContentPart } from '../shared/messages.js'
import { createAttachmentPart } from './create-attachment-part.js'
import type { TurnInput } from './types.js'

export function createInputMessage(input: TurnInput): ChatMessage {
  const attachments: ContentPart[] = [
    ...(input.images ?? []).map((image) => createAttachmentPart(image, 'image')),
    ...(input.files ?? []).map((file) => createAttachmentPart(file, 'file')),
    ...(input.replyImages ?? []).map((image) => ({
      ...createAttachmentPart(image, 'image'),
      inReplyTo: true,
    })),
  ]
  const content: ChatMessage['content'] =
    attachments.length === 0 ? input.text : [{ type: 'text', text: input.text }, ...attachments]
  return { role: 'user', content, source: 'input' }
}
