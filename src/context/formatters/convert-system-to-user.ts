/**
 * convert-system-to-user (700): for models without a system role (capabilities.systemRole false, or
 * `always`), system text is sent as user text, joined to the next user message when there is one.
 */
import type { ChatMessage } from '../../shared/messages.js'
import { readBoolean } from '../processors/read-settings.js'
import type { ContextProcessor } from '../types.js'
import { joinMessageContents } from './join-message-contents.js'

export const convertSystemToUser: ContextProcessor = {
  id: 'convert-system-to-user',
  name: 'System 转 User',
  description: 'For models without a system role: system messages become user text.',
  priority: 700,
  defaultEnabled: true,
  configFields: [
    { key: 'always', label: 'Also for models with a system role', type: 'boolean', default: false },
  ],
  execute(context, settings) {
    if (context.capabilities.systemRole && !readBoolean(settings, 'always', false)) return
    const result: ChatMessage[] = []
    let pending: ChatMessage | undefined
    for (const message of context.messages) {
      if (message.role === 'system') {
        pending = pending
          ? { ...pending, content: joinMessageContents(pending.content, message.content) }
          : message
        continue
      }
      if (pending && message.role === 'user') {
        result.push({ ...message, content: joinMessageContents(pending.content, message.content) })
      } else {
        if (pending) result.push({ ...pending, role: 'user' })
        result.push(message)
      }
      pending = undefined
    }
    if (pending) result.push({ ...pending, role: 'user' })
    context.messages = result
  },
}
