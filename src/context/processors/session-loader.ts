/**
 * session-loader (100): the last `history.max_turns` turns, read through the history store (which
 * must not scan the whole session), placed before the input. An interrupted reply is kept as it was
 * stored: cut where the user stopped listening, without padding.
 */
import type { StoredMessage } from '../../memory/types.js'
import { CharpipeError } from '../../shared/errors.js'
import type { ChatMessage, ContentPart } from '../../shared/messages.js'
import { createAttachmentPart } from '../create-attachment-part.js'
import { lastMessageAtKey } from '../macros/create-macro-values.js'
import type { ContextProcessor } from '../types.js'
import { checkType, readNumber } from './read-settings.js'

function convertStoredMessage(stored: StoredMessage): ChatMessage {
  const attachments = stored.role === 'user' ? (stored.attachments ?? []) : []
  const content: ChatMessage['content'] =
    attachments.length === 0
      ? stored.content
      : [
          { type: 'text', text: stored.content },
          ...attachments.map((reference): ContentPart => createAttachmentPart(reference, 'auto')),
        ]
  return {
    role: stored.role,
    content,
    source: 'history',
    meta: {
      id: stored.id,
      turn: stored.turn,
      createdAt: stored.createdAt,
      emotion: stored.emotion,
      interrupted: stored.interrupted ?? false,
    },
  }
}

export const sessionLoader: ContextProcessor = {
  id: 'session-loader',
  name: '会话加载器',
  description: 'Loads the recent turns of the session from the history store (history.max_turns).',
  priority: 100,
  defaultEnabled: true,
  configFields: [
    {
      key: 'max_turns',
      label: 'Turns loaded',
      type: 'number',
      description: 'Overrides history.max_turns when set.',
    },
  ],
  validateSettings(settings) {
    const issue = checkType(settings, 'max_turns', 'number')
    return issue ? [issue] : []
  },
  async execute(context, settings) {
    const maxTurns = readNumber(settings, 'max_turns', context.config.history.max_turns)
    const scope = { character: context.character.name, session: context.input.session }
    let stored: StoredMessage[]
    let newest: StoredMessage | undefined
    try {
      stored = maxTurns > 0 ? await context.services.history.loadRecent(scope, maxTurns) : []
      // {{idle_duration}} needs the newest stored message even when no turns are loaded.
      newest = stored.at(-1) ?? (await context.services.history.listMessages(scope, { limit: 1 })).at(-1)
    } catch (error) {
      const unavailable = CharpipeError.isInstance(error) && error.code === 'store_unavailable'
      if (!unavailable || !context.config.history.continue_without_store) throw error
      context.logs.push({
        processorId: 'session-loader',
        level: 'warn',
        message: `answering without history (history.continue_without_store): ${error.message}`,
      })
      return
    }
    if (newest) context.sharedData.set(lastMessageAtKey, newest.createdAt)
    if (stored.length === 0) return
    const inputIndex = context.messages.findIndex((message) => message.source === 'input')
    const at = inputIndex === -1 ? context.messages.length : inputIndex
    context.messages.splice(at, 0, ...stored.map(convertStoredMessage))
    context.logs.push({
      processorId: 'session-loader',
      level: 'debug',
      message: `loaded ${stored.length} stored messages (last ${maxTurns} turns)`,
    })
  },
}
