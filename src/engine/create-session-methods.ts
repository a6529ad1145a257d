/**
 * The session group of `Charpipe` (its members about a session rather than a turn): `open` (the
 * character's greeting for a new session), `observe` (a line said by someone else, kept for the next
 * input), `history`, `clear` and `active`. `activity` and `follow` belong to the audience
 * (create-audience-methods.ts).
 */
import { randomUUID } from 'node:crypto'
import { listCharacterIds } from '../config/select-character-config.js'
import { BadRequestError } from '../shared/errors.js'
import { characterRuntimeOf, resolveCharacter, scopeOf } from './character-runtime.js'
import type { EngineContext } from './engine-context.js'
import { forgetOpenedSession, openSession } from './open-session.js'
import { lineBudgetOf } from './session-presence.js'
import type { CharpipeSessions } from './types.js'
import { checkCharacterField, validateObserveInput, validateSessionField } from './validate-generate-input.js'

/** The session an options object names (a string in its place is the former positional call). */
function sessionNamedBy(input: { session: string } | undefined, member: string): string {
  if (typeof input?.session !== 'string') {
    throw new BadRequestError(`sessions.${member} takes an object: { session, … }`)
  }
  return input.session
}

export function createSessionMethods(
  context: EngineContext,
): Omit<CharpipeSessions, 'activity' | 'follow' | 'say' | 'event'> {
  const { opened, lanes } = context
  return {
    observe(input) {
      if (context.state.closed) throw new BadRequestError('this charpipe instance is closed')
      const config = context.state.current.config
      const line = validateObserveInput(input, { maxInputChars: config.conversation.max_input_chars })
      const id = randomUUID()
      context.presence.say(
        line.session,
        { id, speaker: line.speaker, text: line.text, ...(line.images ? { images: line.images } : {}) },
        lineBudgetOf(config),
      )
      // Someone spoke there: a followed session may now be spoken to first.
      context.state.audience?.notePerson(line.session)
      return { id }
    },
    async history(input) {
      const { character, limit, beforeId } = input
      const scope = scopeOf(context, sessionNamedBy(input, 'history'), character)
      return context.state.current.historyStore.listMessages(scope, {
        ...(limit !== undefined ? { limit } : {}),
        ...(beforeId !== undefined ? { beforeId } : {}),
      })
    },
    async clear(input) {
      const session = sessionNamedBy(input, 'clear')
      const character = input.character
      // Without a character, the session is deleted with every character it was held with.
      const characters =
        character === undefined ? listCharacterIds(context.state.current.config) : [character]
      for (const held of characters) {
        const scope = scopeOf(context, session, held)
        await context.state.current.historyStore.clearSession(scope)
        forgetOpenedSession(opened, scope)
      }
    },
    async open(input = {}) {
      if (context.state.closed) throw new BadRequestError('this charpipe instance is closed')
      const session = validateSessionField(input.session)
      const runtime = characterRuntimeOf(context, context.state.current, checkCharacterField(input.character))
      const character = resolveCharacter(context, {
        character: checkCharacterField(input.character),
      }).character
      context.presence.enter(session, character ?? '', lineBudgetOf(context.state.current.config))
      const greeting = await openSession({ runtime, session, opened, random: context.random })
      return greeting ? { greeting } : {}
    },
    active: () => lanes.sessions().filter((session) => lanes.repliesOf(session).length > 0),
  }
}
