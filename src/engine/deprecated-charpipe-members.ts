/**
 * The names `Charpipe` had before its members were grouped, kept one release so programs written
 * against them keep working (CHANGELOG.md lists each with its replacement). Every alias calls the
 * grouped member: there is one implementation of each. `createCharpipe` returns an object that is
 * both a `Charpipe` and these.
 */
import type { AudienceQueueSnapshot, SessionEvent } from '../audience/create-audience-hub.js'
import type { FollowOptions } from '../audience/types.js'
import type { PreviewResult, ProcessorInfo } from '../context/types.js'
import type { StoredMessage } from '../memory/types.js'
import type { CharpipeEvent } from '../shared/events.js'
import type { PreflightStats } from './preflight/preflight-stats.js'
import type {
  ActivityInput,
  AudienceInput,
  AudienceResult,
  AudienceStatsResult,
  Charpipe,
  CharpipeAudience,
  GenerateInput,
  GenerateOptions,
  ModerateAudienceInput,
  ObserveInput,
  OpenSessionInput,
  OpenSessionResult,
  ToolCallStats,
  ToolListing,
} from './types.js'

export interface DeprecatedCharpipeMembers {
  /** @deprecated Use `cp.run(input, { onEvent, ...options })`. */
  run(input: GenerateInput, onEvent: (event: CharpipeEvent) => void, options?: GenerateOptions): Promise<void>
  /** @deprecated Use `cp.sessions.observe(input)`. */
  observe(input: ObserveInput): { id: string }
  /** @deprecated Use `cp.audience.send(input)`. */
  audience(input: AudienceInput): AudienceResult
  /** @deprecated Use `cp.sessions.activity(input)`. */
  activity(input: ActivityInput): void
  /** @deprecated Use `cp.sessions.follow({ session, onEvent, ...options })`. */
  subscribe(session: string, listener: (event: SessionEvent) => void, options?: FollowOptions): () => void
  /** @deprecated Use `cp.audience.queue({ session, character })`. */
  audienceQueue(session: string, options?: { character?: string }): AudienceQueueSnapshot
  /** @deprecated Use `cp.audience.moderate(input)`. */
  moderateAudience(input: ModerateAudienceInput): boolean
  /** @deprecated Use `cp.audience.stats()`. */
  audienceStats(): AudienceStatsResult
  /** @deprecated Use `cp.inspect.preview(input)`. */
  preview(input: GenerateInput): Promise<PreviewResult>
  /** @deprecated Use `cp.sessions.history({ session, limit, beforeId, character })`. */
  history(
    session: string,
    options?: { limit?: number; beforeId?: string; character?: string },
  ): Promise<StoredMessage[]>
  /** @deprecated Use `cp.records.keep({ kind, id, value })`. */
  keepRecord(kind: string, id: string, value: string): Promise<void>
  /** @deprecated Use `cp.records.read({ kind, id })`. */
  readRecord(kind: string, id: string): Promise<string | undefined>
  /** @deprecated Use `cp.sessions.clear({ session, character })`. */
  clearSession(session: string, options?: { character?: string }): Promise<void>
  /** @deprecated Use `cp.sessions.open(input)`. */
  open(input?: OpenSessionInput): Promise<OpenSessionResult>
  /** @deprecated Use `cp.inspect.characters()`. */
  characters(): string[]
  /** @deprecated Use `cp.sessions.active()`. */
  activeSessions(): string[]
  /** @deprecated Use `cp.inspect.processors()`. */
  listProcessors(): ProcessorInfo[]
  /** @deprecated Use `cp.inspect.tools()`. */
  listTools(): ToolListing
  /** @deprecated Use `cp.inspect.toolCalls()`. */
  toolCallStats?(): ToolCallStats[]
  /** @deprecated Use `cp.inspect.preflight()`. */
  preflightStats?(): PreflightStats
}

/** What `createCharpipe` returns: the grouped object, still answering to the former names. */
export type CharpipeWithDeprecatedMembers = Charpipe & DeprecatedCharpipeMembers

/** What `run` takes after the input: its options, or the former event callback. */
type RunSecondArgument = Parameters<Charpipe['run']>[1] | ((event: CharpipeEvent) => void)

/**
 * Adds the former names to `charpipe` (in place, so its getters stay live). `audience` was a
 * method and is now a group: it becomes a group that can still be called as the method was.
 */
export function addDeprecatedMembers(charpipe: Charpipe): CharpipeWithDeprecatedMembers {
  const { sessions, inspect, records } = charpipe
  const group = charpipe.audience
  const run = charpipe.run
  const audience: CharpipeAudience & DeprecatedCharpipeMembers['audience'] = Object.assign(
    (input: AudienceInput) => group.send(input),
    group,
  )
  const aliases: DeprecatedCharpipeMembers = {
    run: (input, onEvent, options) => run(input, { ...options, onEvent }),
    observe: (input) => sessions.observe(input),
    audience,
    activity: (input) => sessions.activity(input),
    subscribe: (session, listener, options) => sessions.follow({ ...options, session, onEvent: listener }),
    audienceQueue: (session, options = {}) => group.queue({ ...options, session }),
    moderateAudience: (input) => group.moderate(input),
    audienceStats: () => group.stats(),
    preview: (input) => inspect.preview(input),
    history: (session, options = {}) => sessions.history({ ...options, session }),
    keepRecord: (kind, id, value) => records.keep({ kind, id, value }),
    readRecord: (kind, id) => records.read({ kind, id }),
    clearSession: (session, options = {}) => sessions.clear({ ...options, session }),
    open: (input) => sessions.open(input),
    characters: () => inspect.characters(),
    activeSessions: () => sessions.active(),
    listProcessors: () => inspect.processors(),
    listTools: () => inspect.tools(),
    ...(inspect.toolCalls ? { toolCallStats: () => inspect.toolCalls!() } : {}),
    ...(inspect.preflight ? { preflightStats: () => inspect.preflight!() } : {}),
  }
  return Object.assign(charpipe, aliases, {
    // Either form: `run(input, { onEvent })`, or the former `run(input, onEvent, options)`.
    run: (input: GenerateInput, second: RunSecondArgument, options?: GenerateOptions) =>
      typeof second === 'function' ? aliases.run(input, second, options) : run(input, second),
  }) as CharpipeWithDeprecatedMembers
}
