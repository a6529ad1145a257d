/**
 * A history store held in process memory: the store behind `history.store: memory`, and the fake
 * that other parts' tests use. Same contract as the persistent stores, including `resetContext`.
 */
import type {
  AppendTurnOptions,
  CompletedTurn,
  ConversationScope,
  HistoryStore,
  ListMessagesOptions,
  StoredMessage,
} from '../types.js'

interface SessionHistory {
  messages: StoredMessage[]
  /** Ids of the stored turns: a turn is stored once. */
  turnIds: Set<string>
  /** Ids of the stored turns that have a message: `hasTurn` without a scan. */
  turnsWithMessages: Set<string>
  /** Index into `messages` where the current context starts (after a reset). */
  contextStart: number
  /** Turns stored from `contextStart` on: `countTurns` without a scan. */
  contextTurns: number
}

const scopeKey = (scope: ConversationScope) => `${scope.character}\u0000${scope.session}`

/** Removes the session's newest turn when it is `turn` and inside the current context. */
function removeNewestTurn(session: SessionHistory, turn: string): void {
  let first = session.messages.length
  while (first > session.contextStart && session.messages[first - 1]!.turn === turn) first--
  if (first === session.messages.length) return
  session.messages.length = first
  session.contextTurns--
  session.turnIds.delete(turn)
  session.turnsWithMessages.delete(turn)
}

export function createInMemoryHistoryStore(): HistoryStore {
  const sessions = new Map<string, SessionHistory & { scope: ConversationScope }>()
  let nextId = 1

  const sessionOf = (scope: ConversationScope) => {
    const key = scopeKey(scope)
    let session = sessions.get(key)
    if (!session) {
      session = {
        scope: { ...scope },
        messages: [],
        turnIds: new Set(),
        turnsWithMessages: new Set(),
        contextStart: 0,
        contextTurns: 0,
      }
      sessions.set(key, session)
    }
    return session
  }

  return {
    async loadRecent(scope, maxTurns) {
      const session = sessions.get(scopeKey(scope))
      if (!session || maxTurns <= 0) return []
      // Walk back from the end counting turns (a turn's messages are stored together), so the cost
      // is the size of the window. A turn is a turn with or without a user message (a greeting).
      let start = session.messages.length
      let turns = 0
      while (start > session.contextStart) {
        const turn = session.messages[start - 1]!.turn
        if (turns === maxTurns) break
        turns++
        while (start > session.contextStart && session.messages[start - 1]!.turn === turn) start--
      }
      return session.messages.slice(Math.max(start, session.contextStart)).map((message) => ({ ...message }))
    },

    async appendTurn(scope, turn: CompletedTurn, options: AppendTurnOptions = {}) {
      const session = sessionOf(scope)
      if (session.turnIds.has(turn.turn)) return
      if (options.replaces !== undefined) removeNewestTurn(session, options.replaces)
      session.turnIds.add(turn.turn)
      const store = (message: StoredMessage) => {
        session.messages.push({ ...message, id: String(nextId++), turn: turn.turn })
        session.turnsWithMessages.add(turn.turn)
      }
      if (turn.user) store(turn.user)
      if (turn.assistant) store(turn.assistant)
      session.contextTurns++
    },

    async hasTurn(scope, turn) {
      const session = sessions.get(scopeKey(scope))
      return session?.turnsWithMessages.has(turn) === true
    },

    async findTurn(scope, turn) {
      const session = sessions.get(scopeKey(scope))
      if (!session?.turnsWithMessages.has(turn)) return []
      return session.messages.filter((message) => message.turn === turn).map((message) => ({ ...message }))
    },

    async listMessages(scope, options: ListMessagesOptions = {}) {
      const session = sessions.get(scopeKey(scope))
      if (!session) return []
      let messages = session.messages
      if (options.beforeId !== undefined) {
        const before = Number(options.beforeId)
        messages = messages.filter((message) => Number(message.id) < before)
      }
      if (options.limit !== undefined) messages = messages.slice(-options.limit)
      return messages.map((message) => ({ ...message }))
    },

    async countTurns(scope) {
      return sessions.get(scopeKey(scope))?.contextTurns ?? 0
    },

    async clearSession(scope) {
      sessions.delete(scopeKey(scope))
    },

    async resetContext(scope) {
      const session = sessionOf(scope)
      session.contextStart = session.messages.length
      session.contextTurns = 0
    },

    async listSessions(character) {
      return [...sessions.values()]
        .filter((session) => session.scope.character === character)
        .map((session) => session.scope.session)
    },

    async redactTurn(scope, turn, marker) {
      const session = sessions.get(scopeKey(scope))
      if (!session) return 0
      let changed = 0
      session.messages = session.messages.map((message) => {
        if (message.turn !== turn || message.role !== 'user') return message
        changed++
        const { attachments: _attachments, ...rest } = message
        return { ...rest, content: marker }
      })
      return changed
    },

    async close() {
      sessions.clear()
    },
  }
}
