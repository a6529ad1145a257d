/**
 * The public methods about a session rather than a turn: `observe` (a line said by someone else,
 * kept for the next input), `preview` (the context a turn would send, without sending it),
 * `history`, `clearSession` and `open` (the character's greeting for a new session).
 */
import { randomUUID } from 'node:crypto'
import { listCharacterIds } from '../config/select-character-config.js'
import { createInMemoryHistoryStore } from '../memory/history/in-memory-history-store.js'
import type { ConversationScope } from '../memory/types.js'
import { BadRequestError } from '../shared/errors.js'
import { characterRuntimeOf, resolveCharacter, scopeOf } from './character-runtime.js'
import { conversationScopeOf } from './conversation-scope-of.js'
import type { EngineContext } from './engine-context.js'
import { createPipelineServices } from './engine-runtime.js'
import { forgetOpenedSession, openSession, previewGreeting } from './open-session.js'
import { inputLanguageOf, renderGroupInput } from './render-group-input.js'
import { lineBudgetOf } from './session-presence.js'
import type { Charpipe } from './types.js'
import {
  checkCharacterField,
  validateGenerateInput,
  validateObserveInput,
  validateSessionField,
} from './validate-generate-input.js'

/**
 * Records live in the history store as one-message turns (the turn id is the record's id) of a
 * session per kind, under a character id no character can have: every store keeps them as durably
 * as turns, finds them by id, and no session list or character's history shows them.
 */
function recordScopeOf(kind: string): ConversationScope {
  if (!/^[a-z][a-z0-9_-]{0,63}$/.test(kind)) throw new BadRequestError(`record kind: ${kind} is not a name`)
  return { character: '~records', session: kind }
}

export function createSessionMethods(
  context: EngineContext,
): Pick<Charpipe, 'observe' | 'preview' | 'history' | 'keepRecord' | 'readRecord' | 'clearSession' | 'open'> {
  const { logger, opened, pipeline } = context
  return {
    observe(input) {
      if (context.closed) throw new BadRequestError('this charpipe instance is closed')
      const config = context.current.config
      const line = validateObserveInput(input, { maxInputChars: config.conversation.max_input_chars })
      const id = randomUUID()
      context.presence.say(
        line.session,
        { id, speaker: line.speaker, text: line.text, ...(line.images ? { images: line.images } : {}) },
        lineBudgetOf(config),
      )
      return { id }
    },
    async preview(input) {
      const config = context.current.config
      const validated = validateGenerateInput(input, {
        maxInputChars: config.conversation.max_input_chars,
      })
      resolveCharacter(context, validated)
      const heard = context.presence.peek(validated.session, validated.character ?? '')
      const turnInput = renderGroupInput(
        validated,
        heard,
        config.conversation.group,
        inputLanguageOf(config, validated),
      )
      const runtime = characterRuntimeOf(context, context.current, turnInput.character)
      const services = createPipelineServices(runtime, logger)
      // A new session's first turn follows its greeting: the preview shows it there too.
      const greeting = await previewGreeting({
        runtime,
        session: turnInput.session,
        opened,
        random: context.random,
      })
      if (greeting) {
        services.history = createInMemoryHistoryStore()
        const scope = conversationScopeOf(runtime, turnInput.session)
        await services.history.appendTurn(scope, { turn: 'greeting-preview', assistant: greeting })
      }
      return pipeline.preview({
        input: turnInput,
        config: runtime.config,
        capabilities: runtime.capabilities,
        services,
      })
    },
    async history(session, historyOptions = {}) {
      const { character, ...listOptions } = historyOptions
      return context.current.historyStore.listMessages(scopeOf(context, session, character), listOptions)
    },
    async keepRecord(kind, id, value) {
      const scope = recordScopeOf(kind)
      await context.current.historyStore.appendTurn(scope, {
        turn: id,
        assistant: { role: 'assistant', content: value, createdAt: Date.now() },
      })
    },
    async readRecord(kind, id) {
      const [message] = await context.current.historyStore.findTurn(recordScopeOf(kind), id)
      return message?.content
    },
    async clearSession(session, clearOptions = {}) {
      // Without a character, the session is deleted with every character it was held with.
      const characters =
        clearOptions.character === undefined
          ? listCharacterIds(context.current.config)
          : [clearOptions.character]
      for (const character of characters) {
        const scope = scopeOf(context, session, character)
        await context.current.historyStore.clearSession(scope)
        forgetOpenedSession(opened, scope)
      }
    },
    async open(input = {}) {
      if (context.closed) throw new BadRequestError('this charpipe instance is closed')
      const session = validateSessionField(input.session)
      const runtime = characterRuntimeOf(context, context.current, checkCharacterField(input.character))
      const character = resolveCharacter(context, {
        character: checkCharacterField(input.character),
      }).character
      context.presence.enter(session, character ?? '', lineBudgetOf(context.current.config))
      const greeting = await openSession({ runtime, session, opened, random: context.random })
      return greeting ? { greeting } : {}
    },
  }
}
