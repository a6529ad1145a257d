/**
 * Greetings (a card's `first_mes`): a character with `greeting` or `alternate_greetings` opens a new
 * session with one of them, stored as an assistant message of a turn of its own, before anything the
 * user says — as SillyTavern starts every chat. It happens when a client opens the session (`open`)
 * or, at the latest, when the session's first input arrives; either way once per session, since a
 * session that has any stored message is not new. `{{char}}` and `{{user}}` are filled in.
 */
import { randomUUID } from 'node:crypto'
import type { CharacterConfig } from '../config/schema.js'
import { expandMacros } from '../context/macros/expand-macros.js'
import type { ConversationScope, StoredMessage } from '../memory/types.js'
import { resolveCharacterLanguage, resolveUserName } from '../shared/language/index.js'
import { stripUnsafeCharacters } from '../shared/strip-unsafe-characters.js'
import { conversationScopeOf } from './conversation-scope-of.js'
import type { EngineRuntime } from './engine-runtime.js'

/** The greetings a character may open with; empty when it has none. */
function listGreetings(character: CharacterConfig): string[] {
  return [character.greeting, ...character.alternate_greetings].filter((text) => text.trim() !== '')
}

/**
 * Sessions known to have begun, so turns after the first cost no store read, and the openings in
 * progress, so an `open` and a first input arriving together greet once. Bounded: a forgotten
 * session is only read once more.
 */
export interface OpenedSessions {
  known: Set<string>
  pending: Map<string, Promise<StoredMessage | undefined>>
  /** The greeting a preview showed for a new session (its index), which its opening then uses. */
  chosen: Map<string, number>
  limit: number
}

export function createOpenedSessions(limit = 10_000): OpenedSessions {
  return { known: new Set(), pending: new Map(), chosen: new Map(), limit }
}

function keyOf(scope: ConversationScope): string {
  return `${scope.character}\u0000${scope.session}`
}

/** Forgets a session (its history was deleted): its next input opens it again. */
export function forgetOpenedSession(opened: OpenedSessions, scope: ConversationScope): void {
  opened.known.delete(keyOf(scope))
}

export interface OpenSessionOptions {
  /** The runtime of the session's character (`selectCharacterRuntime`). */
  runtime: EngineRuntime
  session: string
  opened: OpenedSessions
  /** Picks among the greetings. @default Math.random */
  random?: () => number
}

/** Stores the greeting when the session is new; returns it then, undefined otherwise. */
export async function openSession(options: OpenSessionOptions): Promise<StoredMessage | undefined> {
  const { runtime, opened } = options
  if (listGreetings(runtime.config.character).length === 0) return undefined
  const scope = conversationScopeOf(runtime, options.session)
  const key = keyOf(scope)
  if (opened.known.has(key)) return undefined
  const running = opened.pending.get(key)
  if (running) {
    // Someone else is greeting this session now: it is theirs to send.
    await running.catch(() => undefined)
    return undefined
  }
  const opening = greetIfNew(runtime, scope, () => chooseGreeting(options, key))
  opened.pending.set(key, opening)
  try {
    const greeting = await opening
    opened.known.add(key)
    // A Set iterates in insertion order: the oldest entry goes first.
    if (opened.known.size > opened.limit) opened.known.delete(opened.known.values().next().value!)
    return greeting
  } finally {
    opened.pending.delete(key)
    opened.chosen.delete(key)
  }
}

/** The index of the greeting a new session opens with: the one a preview showed, else a random one. */
function chooseGreeting(options: OpenSessionOptions, key: string): number {
  const count = listGreetings(options.runtime.config.character).length
  const shown = options.opened.chosen.get(key)
  if (shown !== undefined && shown < count) return shown
  const random = options.random ?? Math.random
  const index = Math.min(count - 1, Math.floor(random() * count))
  options.opened.chosen.set(key, index)
  // A Map iterates in insertion order: the oldest choice goes first.
  if (options.opened.chosen.size > options.opened.limit)
    options.opened.chosen.delete(options.opened.chosen.keys().next().value!)
  return index
}

/**
 * The greeting a new session will open with, without storing it (a preview shows what the first turn
 * really sends): the choice is kept, so the session's opening then uses the same one. Undefined when
 * the session is not new or the character has no greeting.
 */
export async function previewGreeting(options: OpenSessionOptions): Promise<StoredMessage | undefined> {
  const { runtime } = options
  if (listGreetings(runtime.config.character).length === 0) return undefined
  const scope = conversationScopeOf(runtime, options.session)
  const key = keyOf(scope)
  if (options.opened.known.has(key)) return undefined
  if ((await runtime.historyStore.listMessages(scope, { limit: 1 })).length > 0) return undefined
  return createGreeting(runtime.config.character, chooseGreeting(options, key))
}

function createGreeting(character: CharacterConfig, index: number): StoredMessage {
  const now = Date.now()
  return {
    role: 'assistant',
    // A card's text is shown as a subtitle like the model's: the same characters are kept out.
    content: stripUnsafeCharacters(
      expandMacros(listGreetings(character)[index]!, {
        char: character.name,
        user: resolveUserName(character),
        language: resolveCharacterLanguage(character),
        timestamp: now,
        lastUserMessage: '',
      }),
    ),
    emotion: character.default_emotion,
    createdAt: now,
  }
}

async function greetIfNew(
  runtime: EngineRuntime,
  scope: ConversationScope,
  choose: () => number,
): Promise<StoredMessage | undefined> {
  const existing = await runtime.historyStore.listMessages(scope, { limit: 1 })
  if (existing.length > 0) return undefined
  const greeting = createGreeting(runtime.config.character, choose())
  const turn = `greeting-${randomUUID()}`
  await runtime.historyStore.appendTurn(scope, { turn, assistant: greeting })
  return { ...greeting, turn }
}
