/**
 * anthropic-format (800): Anthropic takes one system prompt as a separate parameter, then messages
 * that start with a user message and alternate user/assistant, without empty text. On for apiType
 * `anthropic` (or with `always`): leading system messages stay first (the provider lifts them out),
 * later ones become user text, empty messages are dropped, same roles are joined and an assistant
 * message at the start gets a short user message before it.
 */
import { readScaffoldingTexts, resolveCharacterLanguage } from '../../shared/language/index.js'
import type { ChatMessage } from '../../shared/messages.js'
import { readBoolean, readString } from '../processors/read-settings.js'
import type { ContextProcessor } from '../types.js'
import { isEmptyMessage, joinMessageContents, mergeMessages } from './join-message-contents.js'

export interface FormatForAnthropicOptions {
  /** Text of the user message put before a leading assistant message. @default '（对话开始）' */
  firstUserText?: string
  separator?: string
}

/** The conversation part of an Anthropic request: role of a non-system message for alternation. */
const sideOf = (message: ChatMessage) => (message.role === 'assistant' ? 'assistant' : 'user')

/** `messages` rewritten into a sequence Anthropic accepts (see the file comment). */
export function formatForAnthropic(
  messages: readonly ChatMessage[],
  options: FormatForAnthropicOptions = {},
) {
  const separator = options.separator ?? '\n\n'
  let system: ChatMessage | undefined
  const conversation: ChatMessage[] = []
  for (const message of messages) {
    if (message.role === 'system' && conversation.length === 0) {
      if (isEmptyMessage(message)) continue
      system = system
        ? { ...system, content: joinMessageContents(system.content, message.content, separator) }
        : message
      continue
    }
    if (isEmptyMessage(message)) continue
    const converted: ChatMessage = message.role === 'system' ? { ...message, role: 'user' } : message
    const previous = conversation.at(-1)
    // Tool calls and results keep their own messages; the provider pairs them.
    const joinable =
      previous &&
      sideOf(previous) === sideOf(converted) &&
      previous.role !== 'tool' &&
      converted.role !== 'tool' &&
      !previous.toolCalls?.length
    if (joinable) conversation[conversation.length - 1] = mergeMessages(previous, converted, separator)
    else conversation.push(converted)
  }
  const first = conversation[0]
  if (first && sideOf(first) !== 'user') {
    conversation.unshift({
      role: 'user',
      content: options.firstUserText ?? readScaffoldingTexts('zh').conversationStart,
      source: 'system',
    })
  }
  return system ? [system, ...conversation] : conversation
}

export const anthropicFormat: ContextProcessor = {
  id: 'anthropic-format',
  name: 'Anthropic 角色交替',
  description:
    'For Anthropic models: one leading system prompt, user first, alternating user/assistant, no empty messages.',
  priority: 800,
  defaultEnabled: true,
  configFields: [
    { key: 'always', label: 'Also for other models', type: 'boolean', default: false },
    {
      key: 'first_user_text',
      label: 'Opening user text',
      type: 'text',
      default: '',
      placeholder: '（对话开始）',
      description: "Empty: the character language's (（对话开始）, (The conversation begins.)).",
    },
  ],
  execute(context, settings) {
    if (context.capabilities.apiType !== 'anthropic' && !readBoolean(settings, 'always', false)) return
    context.messages = formatForAnthropic(context.messages, {
      firstUserText:
        readString(settings, 'first_user_text', '') ||
        readScaffoldingTexts(resolveCharacterLanguage(context.character)).conversationStart,
    })
  },
}
