/**
 * The stored conversation of a session (`GET /api/sessions/:id/messages`) as chat turns, so a reload
 * shows what was said. Messages are grouped by their turn id when they carry one, else a user message
 * opens a turn and the assistant message after it closes it; a user message without a reply is a turn
 * that failed. An `event` (an idle turn's instruction, an owner's event) opens a turn too, shown as
 * what it is. A reply stored as `[silence]` is a silent turn (the signal is never shown as words), and
 * a reply's `thought` is kept apart from its words.
 */
import type { TurnView } from './apply-chat-frame.js'
import { readContentText } from './read-response-list.js'

export interface StoredChatMessage {
  role: string
  content: unknown
  emotion?: string
  interrupted?: boolean
  /** A question whose turn failed before any reply. */
  failed?: boolean
  turn?: string
  attachments?: unknown[]
  /** Assistant: the character's inner thought before the reply. */
  thought?: unknown
}

/** The label an event given to the session is stored with, in the character's language. */
const eventLabel = /^\[(?:事件|Event)\]\s*/

/** The reply the server stores for a turn that ended in silence: the signal itself. */
const silenceSignal = '[silence]'

function createRestoredTurn(id: string | undefined): TurnView {
  return {
    id,
    userText: '',
    imageCount: 0,
    subtitles: '',
    sentences: [],
    status: 'done',
    interrupted: false,
    errors: [],
    restored: true,
  }
}

export function convertStoredMessages(messages: StoredChatMessage[]): TurnView[] {
  const turns: TurnView[] = []
  let open: TurnView | undefined
  for (const message of messages) {
    const text = readContentText(message.content)
    if (message.role === 'user') {
      open = createRestoredTurn(message.turn)
      open.userText = text
      open.userEmotion = message.emotion
      open.imageCount = Array.isArray(message.attachments) ? message.attachments.length : 0
      if (message.failed === true) open.failed = true
      turns.push(open)
      continue
    }
    if (message.role === 'event') {
      open = createRestoredTurn(message.turn)
      open.eventText = text
      // An event given to the session has a turn id of its own kind (src/memory/event-turn.ts).
      if (message.turn?.startsWith('event-')) {
        open.toldEvent = true
        // Stored with the note's label for the model; the page words the label itself.
        open.eventText = text.replace(eventLabel, '')
      }
      turns.push(open)
      continue
    }
    if (message.role !== 'assistant') continue
    const belongs =
      open !== undefined && (message.turn === undefined || open.id === undefined || open.id === message.turn)
    if (!belongs) {
      // A reply without its question (a character's greeting, a trimmed store): a turn of its own.
      open = createRestoredTurn(message.turn)
      turns.push(open)
    }
    const current = open as TurnView
    if (typeof message.thought === 'string' && message.thought !== '') current.thought = message.thought
    if (text.trim() === silenceSignal) {
      current.silent = true
      current.emotion = message.emotion
      open = undefined
      continue
    }
    current.subtitles = text
    current.emotion = message.emotion
    current.interrupted = message.interrupted === true
    current.sentences = text ? [{ index: 0, text, emotion: message.emotion ?? '' }] : []
    open = undefined
  }
  return turns
}

/** True for a restored turn whose question got no stored reply (the turn failed). */
export function isUnansweredTurn(turn: TurnView): boolean {
  return turn.restored === true && turn.userText !== '' && turn.subtitles === '' && turn.silent !== true
}
