/**
 * The record group of `Charpipe`: values kept beside the history, in the history store, so they are
 * as durable as the history is (the server keeps its stored `/v1/responses` so).
 */
import type { ConversationScope } from '../memory/types.js'
import { BadRequestError } from '../shared/errors.js'
import type { EngineContext } from './engine-context.js'
import type { CharpipeRecords } from './types.js'

/**
 * Records live in the history store as one-message turns (the turn id is the record's id) of a
 * session per kind, under a character id no character can have: every store keeps them as durably
 * as turns, finds them by id, and no session list or character's history shows them.
 */
function recordScopeOf(kind: unknown): ConversationScope {
  if (typeof kind !== 'string' || !/^[a-z][a-z0-9_-]{0,63}$/.test(kind)) {
    throw new BadRequestError(`record kind: ${String(kind)} is not a name`)
  }
  return { character: '~records', session: kind }
}

export function createRecordMethods(context: EngineContext): CharpipeRecords {
  return {
    async keep({ kind, id, value }) {
      const scope = recordScopeOf(kind)
      await context.state.current.historyStore.appendTurn(scope, {
        turn: id,
        assistant: { role: 'assistant', content: value, createdAt: Date.now() },
      })
    },
    async read({ kind, id }) {
      const [message] = await context.state.current.historyStore.findTurn(recordScopeOf(kind), id)
      return message?.content
    },
  }
}
