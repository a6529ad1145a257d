/**
 * merge-system-messages (500): the system prompt, anchors around the persona and the memory
 * sections arrive as consecutive system messages; models expect one. With `all`, system messages
 * later in the conversation (depth injections) are moved into it too.
 */
import type { ChatMessage } from '../../shared/messages.js'
import { readBoolean } from '../processors/read-settings.js'
import type { ContextProcessor } from '../types.js'
import { joinMessageContents } from './join-message-contents.js'

export const mergeSystemMessages: ContextProcessor = {
  id: 'merge-system-messages',
  name: '合并 System 消息',
  description: 'Merges the leading system messages into one (with "all": every system message).',
  priority: 500,
  defaultEnabled: true,
  configFields: [
    { key: 'all', label: 'Merge every system message', type: 'boolean', default: false },
    { key: 'separator', label: 'Separator', type: 'text', default: '\n\n' },
  ],
  execute(context, settings) {
    const all = readBoolean(settings, 'all', false)
    const separator = typeof settings.separator === 'string' ? settings.separator : '\n\n'
    let merged: ChatMessage | undefined
    const rest: ChatMessage[] = []
    let leading = true
    for (const message of context.messages) {
      if (message.role === 'system' && (leading || all)) {
        merged = merged
          ? { ...merged, content: joinMessageContents(merged.content, message.content, separator) }
          : { ...message, source: 'system' }
      } else {
        leading = false
        rest.push(message)
      }
    }
    context.messages = merged ? [merged, ...rest] : rest
  },
}
