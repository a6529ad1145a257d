/**
 * The session members that speak for the session's owner rather than for a person in it:
 * `say` (the character says given words, no model call) and `event` (something happened; stored
 * for the model to see, and answered now when asked). Their turns are the session's listeners'
 * (followers, connectors), as an idle turn's are, not any one caller's.
 */
import { randomUUID } from 'node:crypto'
import type { AudienceHub } from '../audience/create-audience-hub.js'
import { eventTurnOf } from '../memory/event-turn.js'
import { BadRequestError } from '../shared/errors.js'
import { readAudienceTexts, resolveCharacterLanguage } from '../shared/language/index.js'
import { lookUpOwn } from '../shared/look-up-own.js'
import { characterRuntimeOf, resolveCharacter } from './character-runtime.js'
import { conversationScopeOf } from './conversation-scope-of.js'
import type { EngineContext } from './engine-context.js'
import { startSayTurn } from './start-say-turn.js'
import { startTurn, type TurnStarter } from './turn/start-turn.js'
import type { CharpipeSessions } from './types.js'
import { checkCharacterField, validateSessionField } from './validate-generate-input.js'

interface CheckedWords {
  session: string
  character: string | undefined
  text: string
}

/** The fields both take: the session, the character, and bounded non-empty text. */
function checkWords(context: EngineContext, input: unknown, member: 'say' | 'event'): CheckedWords {
  if (context.state.closed) throw new BadRequestError('this charpipe instance is closed')
  if (input === null || typeof input !== 'object') {
    throw new BadRequestError(`sessions.${member} takes an object: { session, text, … }`)
  }
  const fields = input as Record<string, unknown>
  const session = validateSessionField(fields.session ?? 'default')
  const { character } = resolveCharacter(context, { character: checkCharacterField(fields.character) })
  const text = fields.text
  if (typeof text !== 'string' || text.trim() === '')
    throw new BadRequestError('text must be a non-empty string')
  const maxChars = context.state.current.config.conversation.max_input_chars
  if (text.length > maxChars) {
    throw new BadRequestError(
      `text is longer than conversation.max_input_chars (${text.length} > ${maxChars} characters)`,
    )
  }
  return { session, character, text }
}

/** The emotion asked for when the character has it (by name or alias); else undefined: its default. */
function resolveEmotion(context: EngineContext, character: string | undefined, asked: unknown) {
  if (asked === undefined) return undefined
  if (typeof asked !== 'string') throw new BadRequestError('emotion must be a string')
  const config = characterRuntimeOf(context, context.state.current, character).config.character
  if (config.emotions.includes(asked)) return asked
  const alias = lookUpOwn(config.emotion_aliases, asked)
  return alias !== undefined && config.emotions.includes(alias) ? alias : undefined
}

export function createSayMethods(
  starter: TurnStarter,
  hub: AudienceHub,
): Pick<CharpipeSessions, 'say' | 'event'> {
  const { context } = starter
  // The session's listeners hear these turns; the caller has only the turn id.
  const sinkOf = (session: string) => ({
    push: (event: Parameters<AudienceHub['broadcast']>[1]) => hub.broadcast(session, event),
    close: () => {},
  })
  return {
    say(input) {
      const words = checkWords(context, input, 'say')
      const emotion = resolveEmotion(context, words.character, input.emotion)
      const { turn } = startSayTurn({ context, ...words, emotion, sink: sinkOf(words.session) })
      return { turn }
    },
    async event(input) {
      const words = checkWords(context, input, 'event')
      if (input.respond !== undefined && typeof input.respond !== 'boolean') {
        throw new BadRequestError('respond must be true or false')
      }
      const runtime = characterRuntimeOf(context, context.state.current, words.character)
      // Stored as the model is shown it: a note of what happened, never anyone's words.
      const note = readAudienceTexts(resolveCharacterLanguage(runtime.config.character)).event(words.text)
      const maxChars = context.state.current.config.conversation.max_input_chars
      if (note.length > maxChars) {
        // The note is the turn's input: it, not only the words, must fit the input bound.
        throw new BadRequestError(
          `text is longer than conversation.max_input_chars allows for an event (${note.length} > ${maxChars} characters with its "${note.slice(0, note.length - words.text.length)}" note)`,
        )
      }
      const id = randomUUID()
      const turn = eventTurnOf(id)
      if (input.respond !== true) {
        await runtime.historyStore.appendTurn(conversationScopeOf(runtime, words.session), {
          turn,
          user: { role: 'event', content: note, createdAt: Date.now() },
        })
        return { id }
      }
      const started = startTurn({
        ...starter,
        input: {
          session: words.session,
          ...(words.character ? { character: words.character } : {}),
          text: note,
        },
        sink: sinkOf(words.session),
        origin: { trigger: 'event' },
        turn,
      })
      return { id, turn: started.handle.turn }
    },
  }
}
