/**
 * What the engine does with a finished turn: store it as a memory (the raw exchange), or, with
 * `memory.extract: true`, hand it to a fact extractor (a model call the engine supplies) together
 * with the closest stored facts, and apply its decisions — add, update, delete or leave alone.
 * Each side of the turn is remembered up to `maxRememberedCharacters`: the history keeps the whole
 * turn, and a memory is found by its opening words, so a megabyte pasted or generated in one turn
 * costs the memory store no more than a long paragraph. The memories of a turn a regenerated reply
 * replaced are deleted first.
 */
import type { Language } from '../../shared/language/index.js'
import { getLogger, type Logger } from '../../shared/logger.js'
import type { MemoryRecord, MemoryStore } from '../types.js'

export interface ExtractedFactDecision {
  event: 'add' | 'update' | 'delete' | 'none'
  /** The stored memory an update or delete applies to. */
  id?: string
  text: string
}

export interface FactExtractOptions {
  /** The character's language: the words the extractor is asked in. @default 'zh' */
  language?: Language
}

/** Turns a conversation turn into decisions about stored facts. */
export interface FactExtractor {
  extract(
    turnText: string,
    existing: Pick<MemoryRecord, 'id' | 'text'>[],
    options?: FactExtractOptions,
  ): Promise<ExtractedFactDecision[]>
}

export interface RememberTurnOptions {
  scope: string
  user: string
  /** The reply as spoken; absent or empty when the turn produced none. */
  assistant?: string
  /** Turn id, kept as the memory's source turn. */
  turn?: string
  /**
   * The turn this one took the place of (a regenerated reply): what was remembered from it is
   * forgotten first, since it is no longer said, and the extractor does not see it as known.
   */
  replaces?: string
  /** Milliseconds since the epoch; default now. */
  time?: number
  /** Kept with every memory of the turn (who spoke, see `selectTurnMemoryTarget`). */
  metadata?: Record<string, unknown>
  /** Names written before each line: `{ user: "用户", assistant: "小助手" }`. */
  speakerNames: { user: string; assistant: string }
  /** When given, facts are extracted instead of the raw turn being stored. */
  extractor?: FactExtractor
  /** The character's language, handed to the extractor. @default 'zh' */
  language?: Language
  /** Stored facts shown to the extractor. @default 10 */
  existingLimit?: number
  logger?: Logger
}

export interface RememberTurnResult {
  added: MemoryRecord[]
  updated: MemoryRecord[]
  deleted: string[]
}

/** Characters of each side of a turn kept in its memory; past them the memory ends with "…". */
export const maxRememberedCharacters = 1_000

function capTurnSide(text: string): string {
  const trimmed = text.trim()
  if (trimmed.length <= maxRememberedCharacters) return trimmed
  const code = trimmed.charCodeAt(maxRememberedCharacters)
  const end = code >= 0xdc00 && code <= 0xdfff ? maxRememberedCharacters - 1 : maxRememberedCharacters
  return `${trimmed.slice(0, end)}…`
}

/** Most memories one turn may have left: a turn adds a few, the extractor a handful at most. */
export const maxMemoriesOfTurn = 1_000

/**
 * Deletes the memories taken from `turn` in `scope`; returns their ids. A store that can wait for a
 * write of the scope under way does (`MemoryStore.forgetTurn`), so a memory of the turn still being
 * written is not missed.
 */
export async function forgetTurnMemories(store: MemoryStore, scope: string, turn: string): Promise<string[]> {
  if (store.forgetTurn) return store.forgetTurn(scope, turn)
  const listed = await store.list({ scope, sourceTurn: turn, limit: maxMemoriesOfTurn })
  const deleted: string[] = []
  // Checked again: a store that does not filter by turn lists the scope's newest memories.
  for (const memory of listed) {
    if (memory.sourceTurn !== turn || memory.scope !== scope) continue
    if (await store.delete(memory.id)) deleted.push(memory.id)
  }
  return deleted
}

export async function rememberTurn(
  store: MemoryStore,
  options: RememberTurnOptions,
): Promise<RememberTurnResult> {
  const result: RememberTurnResult = { added: [], updated: [], deleted: [] }
  if (options.replaces !== undefined && options.replaces !== options.turn)
    result.deleted.push(...(await forgetTurnMemories(store, options.scope, options.replaces)))
  const lines = [`${options.speakerNames.user}: ${capTurnSide(options.user)}`]
  if (options.assistant?.trim())
    lines.push(`${options.speakerNames.assistant}: ${capTurnSide(options.assistant)}`)
  const turnText = lines.join('\n')
  if (!options.user.trim() && !options.assistant?.trim()) return result
  const base = {
    scope: options.scope,
    ...(options.time !== undefined ? { time: options.time } : {}),
    ...(options.turn !== undefined ? { sourceTurn: options.turn } : {}),
    ...(options.metadata !== undefined ? { metadata: options.metadata } : {}),
  }
  if (!options.extractor) {
    result.added.push(await store.add({ ...base, text: turnText, speaker: options.speakerNames.user }))
    return result
  }
  const existing = await store.search(turnText, { scope: options.scope, k: options.existingLimit ?? 10 })
  const memories = existing.filter((hit) => hit.kind === 'memory')
  const known = new Set(memories.map((hit) => hit.id))
  const decisions = await options.extractor.extract(
    turnText,
    memories.map((hit) => ({ id: hit.id, text: hit.text })),
    options.language ? { language: options.language } : {},
  )
  const logger = options.logger ?? getLogger('memory')
  for (const decision of decisions) {
    const text = typeof decision.text === 'string' ? decision.text.trim() : ''
    if (decision.event === 'none') continue
    if (decision.event === 'add') {
      if (text)
        result.added.push(
          await store.add({ ...base, text, metadata: { ...options.metadata, extracted: true } }),
        )
      continue
    }
    // An extractor may only touch facts it was shown: ids it invents, or ids of another scope,
    // are ignored rather than trusted.
    if (!decision.id || !known.has(decision.id)) {
      logger.warn(
        { event: decision.event, id: decision.id },
        'memory: extractor named an unknown memory; ignored',
      )
      continue
    }
    if (decision.event === 'update' && text) {
      const updated = await store.update(decision.id, { text })
      if (updated) result.updated.push(updated)
    } else if (decision.event === 'delete') {
      if (await store.delete(decision.id)) result.deleted.push(decision.id)
      known.delete(decision.id)
    }
  }
  return result
}
