/**
 * The engine's side of the audience (src/audience/): the hub's host — turns it starts go through
 * the same `startTurn` as any input, marked with their trigger; messages are recorded as observed
 * lines; policies are the character's view of the config — and the public members built on it: the
 * `audience` group, and the session members `activity`, `follow`, `say` and `event`.
 */

import { audienceMessagesSchema } from '../audience/audience-message-schema.js'
import { createAudienceHub } from '../audience/create-audience-hub.js'
import type { AudienceHost, AudienceTurnRequest } from '../audience/create-audience-runner.js'
import { idleInstructionOf } from '../audience/create-audience-runner.js'
import { normalizeChatText } from '../audience/normalize-chat-text.js'
import { resolveAudiencePolicy } from '../audience/resolve-audience-policy.js'
import type { AudienceClock } from '../audience/types.js'
import { characterIdOf } from '../config/character-id.js'
import { BadRequestError } from '../shared/errors.js'
import { resolveCharacterLanguage } from '../shared/language/index.js'
import { characterRuntimeOf, resolveCharacter } from './character-runtime.js'
import { createSayMethods } from './create-say-methods.js'
import type { EngineContext } from './engine-context.js'
import { renderLine } from './render-group-input.js'
import { abortTurn } from './session-lanes.js'
import { lineBudgetOf } from './session-presence.js'
import { startTurn, type TurnStarter } from './turn/start-turn.js'
import type { CharpipeAudience, CharpipeSessions } from './types.js'
import { checkCharacterField, validateSessionField } from './validate-generate-input.js'

const maxTurnImages = 8

function configOf(context: EngineContext, character: string | undefined) {
  return characterRuntimeOf(context, context.state.current, character).config
}

/** The batch as the turn's input: one line per message, named, in the group chat's line format. */
function renderBatchInput(context: EngineContext, request: AudienceTurnRequest) {
  const config = configOf(context, request.character)
  if (request.trigger === 'idle') {
    const language = resolveCharacterLanguage(config.character)
    return { text: idleInstructionOf(resolvePolicy(context, request.character), language) }
  }
  const settings = config.conversation.group
  const text = request.batch
    .map(({ message }) => {
      const gift = message.gift
        ? ` [gift: ${message.gift.name}${message.gift.value ? ` ×${message.gift.value}` : ''}]`
        : ''
      return renderLine(settings, message.speaker, `${message.text}${gift}`.replace(/\s+/g, ' '))
    })
    .join('\n')
  const images = request.batch.flatMap(({ message }) => message.images ?? []).slice(-maxTurnImages)
  return { text, ...(images.length > 0 ? { images } : {}) }
}

function resolvePolicy(context: EngineContext, character: string | undefined) {
  const config = configOf(context, character)
  return resolveAudiencePolicy(config.audience, config.character.audience)
}

function createHost(
  starter: TurnStarter,
  clock: AudienceClock,
): AudienceHost & {
  observe: Parameters<typeof createAudienceHub>[0]['observe']
} {
  const { context } = starter
  return {
    clock,
    readPolicy: (character) => resolvePolicy(context, character),
    readNames(character) {
      const config = configOf(context, character)
      return [config.character.name, characterIdOf(config.character)]
        .map((name) => normalizeChatText(name).compact)
        .filter((name) => name.length > 0)
    },
    startTurn(request) {
      const { context: engine } = starter
      const ids = new Set(request.batch.map(({ message }) => message.id))
      // The messages answered are the input now, not lines observed beside it.
      if (ids.size > 0) engine.presence.remove(request.session, ids)
      const input = {
        session: request.session,
        ...(request.character ? { character: request.character } : {}),
        ...renderBatchInput(engine, request),
      }
      return new Promise<void>((resolve) => {
        const started = startTurn({
          ...starter,
          input,
          sink: { push: request.onEvent, close: () => {} },
          origin: {
            trigger: request.trigger,
            ...(request.trigger === 'audience' ? { replyingTo: [...ids] } : {}),
            ...onePersonOf(request),
          },
        })
        started.handle.ended.then(resolve, resolve)
      })
    },
    whenLaneFree(session, character) {
      const turns = context.lanes.repliesOf(session, character ?? '')
      if (turns.length === 0) return undefined
      return Promise.allSettled(turns.map((handle) => handle.ended)).then(() => {})
    },
    interrupt(session, character) {
      for (const handle of context.lanes.turnsOf(session, character ?? '')) {
        if (handle.running) abortTurn(handle, { kind: 'interrupt' })
      }
    },
    observe(session, character, message) {
      const budget = lineBudgetOf(context.state.current.config)
      // The character answering the session's audience is present there from its first message.
      context.presence.enter(session, character ?? '', budget)
      const { id, name } = message.speaker
      context.presence.say(
        session,
        {
          id: message.id,
          speaker: { id, ...(name ? { name } : {}) },
          text: message.text,
          ...(message.images ? { images: message.images } : {}),
        },
        budget,
      )
    },
  }
}

/** The batch's one speaker, when every message is theirs: the turn's person (memory.per_person). */
function onePersonOf(request: AudienceTurnRequest): { speaker?: { id: string; name?: string } } {
  const first = request.batch[0]?.message.speaker
  if (!first || first.id === '' || request.batch.some(({ message }) => message.speaker.id !== first.id))
    return {}
  return { speaker: { id: first.id, ...(first.name ? { name: first.name } : {}) } }
}

export interface AudienceMethods {
  audience: CharpipeAudience
  /** The session members that reach the audience hub. */
  sessions: Pick<CharpipeSessions, 'activity' | 'follow' | 'say' | 'event'>
}

export function createAudienceMethods(starter: TurnStarter, clock: AudienceClock): AudienceMethods {
  const { context } = starter
  const hub = createAudienceHub(createHost(starter, clock))
  context.state.audience = hub
  const characterOf = (value: unknown) =>
    resolveCharacter(context, { character: checkCharacterField(value) }).character
  const audience: CharpipeAudience = {
    send(input) {
      if (context.state.closed) throw new BadRequestError('this charpipe instance is closed')
      const session = validateSessionField(input?.session)
      const character = characterOf(input?.character)
      const parsed = audienceMessagesSchema.safeParse(input?.messages)
      if (!parsed.success) {
        const issue = parsed.error.issues[0]!
        throw new BadRequestError(`messages.${issue.path.map(String).join('.')}: ${issue.message}`)
      }
      const maxChars = context.state.current.config.conversation.max_input_chars
      const long = parsed.data.find((message) => message.text.length > maxChars)
      if (long) {
        throw new BadRequestError(
          `message ${long.id}: text is longer than conversation.max_input_chars (${maxChars})`,
        )
      }
      const admitTurn = typeof input.admitTurn === 'function' ? input.admitTurn : undefined
      const source = typeof input.source === 'string' ? input.source : undefined
      const weigh = typeof input.weigh === 'function' ? input.weigh : undefined
      const keeper = input.keeper
      return hub.receive(session, character, parsed.data, {
        ...(admitTurn ? { admitTurn } : {}),
        ...(keeper ? { keeper } : {}),
        ...(source !== undefined ? { source } : {}),
        ...(weigh ? { weigh } : {}),
      })
    },
    queue: (input) => hub.queue(validateSessionField(input?.session), characterOf(input?.character)),
    moderate(input) {
      const session = validateSessionField(input.session)
      return hub.moderate(session, characterOf(input.character), input.id, input.action)
    },
    stats: () => ({ ...hub.stats(), waits: hub.takeWaits() }),
  }
  const sessions: AudienceMethods['sessions'] = {
    activity(input) {
      const session = validateSessionField(input?.session)
      if (typeof input?.speaking !== 'boolean') throw new BadRequestError('speaking must be true or false')
      hub.activity(session, input.speaking)
    },
    ...createSayMethods(starter, hub),
    follow(input) {
      if (typeof input?.onEvent !== 'function') throw new BadRequestError('follow needs onEvent, a function')
      return hub.subscribe(validateSessionField(input.session), input.onEvent, {
        ...(input.live === false ? { live: false } : {}),
        ...(typeof input.reachable === 'function' ? { reachable: input.reachable } : {}),
        ...(input.audience ? { audience: input.audience } : {}),
        ...(typeof input.admitIdle === 'function' ? { admitIdle: input.admitIdle } : {}),
      })
    },
  }
  return { audience, sessions }
}
