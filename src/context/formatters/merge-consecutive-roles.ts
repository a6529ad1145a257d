/**
 * merge-consecutive-roles (600, on by default): joins neighbouring user/user or
 * assistant/assistant messages. Several OpenAI-compatible models reject repeated roles (DeepSeek's
 * reasoner among them), and an odd `injected_history` or a turn that failed before its reply puts
 * two user messages side by side; joining keeps every word, where dropping one would lose it.
 * Messages with tool calls and tool results are left alone.
 */
import type { ChatMessage } from '../../shared/messages.js'
import type { ContextProcessor } from '../types.js'
import { mergeMessages } from './join-message-contents.js'

const isMergeable = (message: ChatMessage) =>
  (message.role === 'user' || message.role === 'assistant') && !message.toolCalls?.length

/** `messages` with neighbouring same-role user/assistant messages joined. */
export function mergeConsecutiveRoles(messages: readonly ChatMessage[], separator = '\n\n'): ChatMessage[] {
  const result: ChatMessage[] = []
  for (const message of messages) {
    const previous = result.at(-1)
    if (previous && previous.role === message.role && isMergeable(previous) && isMergeable(message)) {
      result[result.length - 1] = mergeMessages(previous, message, separator)
    } else {
      result.push(message)
    }
  }
  return result
}

export const mergeConsecutiveRolesProcessor: ContextProcessor = {
  id: 'merge-consecutive-roles',
  name: '合并连续角色',
  description: 'Joins neighbouring messages of the same role (user/user, assistant/assistant).',
  priority: 600,
  defaultEnabled: true,
  configFields: [{ key: 'separator', label: 'Separator', type: 'text', default: '\n\n' }],
  execute(context, settings) {
    const separator = typeof settings.separator === 'string' ? settings.separator : '\n\n'
    context.messages = mergeConsecutiveRoles(context.messages, separator)
  },
}
