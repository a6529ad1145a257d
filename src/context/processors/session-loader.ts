/**
 * session-loader (100): the last `history.max_turns` turns, read through the history store (which
 * must not scan the whole session), placed before the input. An interrupted reply is kept as it was
 * stored: cut where the user stopped listening, without padding.
 *
 * With `trim_block` N > 1 the window's start moves N turns at a time (between max_turns and
 * max_turns + N - 1 turns are loaded), so the history at the start of the prompt stays the same for
 * N turns and provider prompt caches keep hitting instead of missing on every turn.
 *
 * Past replies are written back in the character's reply format (`replay_format`, on by default):
 * `{"emotion": …, "text": …}` for json, the emotion line for prefix, an inline tag for plain with
 * tags, so the model sees one format throughout the conversation. An idle turn's instruction (a
 * stored `event`) comes back as a system note saying what happened then, never as the user's words;
 * so does an event given to the session (`sessions.event`, told apart by its turn id).
 */

import { characterIdOf } from '../../config/character-id.js'
import type { CharacterConfig } from '../../config/schema.js'
import { isEventTurn } from '../../memory/event-turn.js'
import { modelRoleOf } from '../../memory/model-role-of.js'
import type { StoredMessage } from '../../memory/types.js'
import { CharpipeError } from '../../shared/errors.js'
import { readAudienceTexts, resolveCharacterLanguage } from '../../shared/language/index.js'
import type { ChatMessage, ContentPart } from '../../shared/messages.js'
import { formatStoredReply } from '../assembler/format-stored-reply.js'
import { createAttachmentPart } from '../create-attachment-part.js'
import { lastMessageAtKey } from '../macros/create-macro-values.js'
import type { ContextProcessor } from '../types.js'
import { checkType, readBoolean, readNumber } from './read-settings.js'

function convertStoredMessage(
  stored: StoredMessage,
  replayIn: CharacterConfig | undefined,
  character: CharacterConfig,
): ChatMessage {
  if (stored.role === 'event') return convertStoredEvent(stored, character)
  const attachments = stored.role === 'user' ? (stored.attachments ?? []) : []
  const text =
    replayIn && stored.role === 'assistant'
      ? formatStoredReply(stored.content, stored.emotion, replayIn)
      : stored.content
  const content: ChatMessage['content'] =
    attachments.length === 0
      ? text
      : [
          { type: 'text', text: stored.content },
          ...attachments.map((reference): ContentPart => createAttachmentPart(reference, 'auto')),
        ]
  return {
    role: modelRoleOf(stored.role),
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
      min: 0,
      max: 1000,
      integer: true,
      description: 'Overrides history.max_turns when set.',
    },
    {
      key: 'trim_block',
      label: 'Drop old turns in blocks of',
      type: 'number',
      min: 1,
      max: 100,
      integer: true,
      default: 1,
      description:
        'The oldest turns leave the window this many at a time, so the prompt start stays the same for that many turns (prompt caching). 1: one at a time.',
    },
    {
      key: 'replay_format',
      label: 'Past replies in the reply format',
      type: 'boolean',
      default: true,
      description:
        'Past replies go back to the model as it was asked to write them (JSON with the emotion, the emotion line, or an inline tag), not as bare text.',
    },
  ],
  validateSettings(settings) {
    const issues = []
    for (const key of ['max_turns', 'trim_block']) {
      const issue = checkType(settings, key, 'number')
      if (issue) issues.push(issue)
    }
    const replay = checkType(settings, 'replay_format', 'boolean')
    if (replay) issues.push(replay)
    return issues
  },
  async execute(context, settings) {
    if (context.input.clientPrompt?.history) {
      insertClientHistory(context)
      return
    }
    if (context.input.stateless) return
    const maxTurns = readNumber(settings, 'max_turns', context.config.history.max_turns)
    const replayIn = readBoolean(settings, 'replay_format', true) ? context.character : undefined
    const block = Math.max(1, Math.floor(readNumber(settings, 'trim_block', 1)))
    const scope = { character: characterIdOf(context.character), session: context.input.session }
    const history = context.services.history
    let stored: StoredMessage[]
    let newest: StoredMessage | undefined
    let turns = maxTurns
    try {
      turns =
        maxTurns > 0 && block > 1
          ? turnsInBlockWindow(await history.countTurns(scope), maxTurns, block)
          : maxTurns
      stored = turns > 0 ? await history.loadRecent(scope, turns) : []
      // {{idle_duration}} needs the newest stored message even when no turns are loaded.
      newest = stored.at(-1) ?? (await history.listMessages(scope, { limit: 1 })).at(-1)
    } catch (error) {
      const unavailable = CharpipeError.isInstance(error) && error.code === 'store_unavailable'
      // A regenerate (`replaces`) answered without its history would be stored as a new turn when
      // the turn it replaces is no longer the newest by then: it fails whatever the setting.
      const regenerate = context.input.replaces !== undefined
      if (!unavailable || !context.config.history.continue_without_store || regenerate) throw error
      context.logs.push({
        processorId: 'session-loader',
        level: 'warn',
        message: `answering without history (history.continue_without_store): ${error.message}`,
      })
      return
    }
    if (newest) context.sharedData.set(lastMessageAtKey, newest.createdAt)
    // A turn that failed before any reply left its user message alone: sent again, the model would
    // see two user messages in a row (and answer the old one). It stays stored for the record.
    // A regenerated turn's earlier answer is not shown to the model: the input asks it again.
    const replaced = context.input.replaces
    const sent = stored.filter(
      (message) => !message.failed && (replaced === undefined || message.turn !== replaced),
    )
    if (sent.length === 0) return
    const inputIndex = context.messages.findIndex((message) => message.source === 'input')
    const at = inputIndex === -1 ? context.messages.length : inputIndex
    context.messages.splice(
      at,
      0,
      ...sent.map((message) => convertStoredMessage(message, replayIn, context.character)),
    )
    const skipped = stored.length - sent.length
    context.logs.push({
      processorId: 'session-loader',
      level: 'debug',
      message: `loaded ${sent.length} stored messages (last ${turns} turns)${skipped ? `; left out ${skipped} of failed turns` : ''}`,
    })
  },
}

/** A past idle turn's instruction: a system note of what happened then, in the character's language. */
function convertStoredEvent(stored: StoredMessage, character: CharacterConfig): ChatMessage {
  const texts = readAudienceTexts(resolveCharacterLanguage(character))
  return {
    role: modelRoleOf(stored.role),
    // An event is stored as the model was first shown it (`[事件] …`); an idle instruction bare.
    content: isEventTurn(stored.turn) ? stored.content : texts.pastIdleInstruction(stored.content),
    source: 'history',
    meta: { id: stored.id, turn: stored.turn, createdAt: stored.createdAt, event: true },
  }
}

/**
 * How many turns to load so that the window's first turn only moves every `block` turns: the last
 * `maxTurns`, plus the turns since the last block boundary (`storedTurns` counts the session's turns).
 */
export function turnsInBlockWindow(storedTurns: number, maxTurns: number, block: number): number {
  if (block <= 1 || storedTurns <= maxTurns) return maxTurns
  return maxTurns + ((storedTurns - maxTurns) % block)
}

/** The client's own conversation in place of the stored one, as past words (macros not expanded). */
function insertClientHistory(context: Parameters<ContextProcessor['execute']>[0]): void {
  const history = context.input.clientPrompt?.history ?? []
  if (history.length === 0) return
  const inputIndex = context.messages.findIndex((message) => message.source === 'input')
  const at = inputIndex === -1 ? context.messages.length : inputIndex
  const messages = history.map((message): ChatMessage => ({ ...message, source: 'history' }))
  context.messages.splice(at, 0, ...messages)
  context.logs.push({
    processorId: 'session-loader',
    level: 'debug',
    message: `used the ${history.length} messages of history the client sent`,
  })
}
