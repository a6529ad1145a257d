/**
 * The public face of the library (PROTOCOL.md "Library"): `createCharpipe(config)` returns a
 * `Charpipe`. The server, the CLI and users' programs drive the product only through this.
 *
 * The turn API sits at the top level (`generate`, `run`, `on`, `off`, `interrupt`, `reload`,
 * `close`); the rest is grouped by what it is about: `sessions`, `audience`, `inspect`, `records`.
 * The names used before the groups stay one release as deprecated aliases
 * (deprecated-charpipe-members.ts).
 */
import type { AudienceQueueSnapshot } from '../audience/create-audience-hub.js'
import type { Cluster } from '../cluster/connect-cluster.js'
import type { CharpipeConfig } from '../config/schema.js'
import type { PreviewResult, ProcessorInfo } from '../context/types.js'
import type { PeopleDirectory } from '../memory/people/create-people-directory.js'
import type { HistoryStore, MemoryStore, StoredMessage } from '../memory/types.js'
import type { CharpipeEvent, CharpipeEventOf, CharpipeEventType } from '../shared/events.js'
import type {
  ActivityInput,
  AudienceInput,
  AudienceQueueInput,
  AudienceResult,
  AudienceStatsResult,
  ClearSessionInput,
  EventInput,
  EventResult,
  FollowSessionInput,
  GenerateInput,
  GenerateOptions,
  InterruptOptions,
  KeepRecordInput,
  ModerateAudienceInput,
  ObserveInput,
  OpenSessionInput,
  OpenSessionResult,
  ReadRecordInput,
  RunOptions,
  SayInput,
  SayResult,
  SessionHistoryInput,
  ToolCallStats,
  ToolListing,
} from './charpipe-inputs.js'
import type { PreflightStats } from './preflight/preflight-stats.js'

export type * from './charpipe-inputs.js'

export type CharpipeListener<T extends CharpipeEventType> = (event: CharpipeEventOf<T>) => void

/** What concerns a session rather than one turn. */
export interface CharpipeSessions {
  /**
   * Opens a session with a character: a new one gets the character's greeting, stored as its first
   * reply and returned (a session's first input does the same when no one opened it).
   */
  open(input?: OpenSessionInput): Promise<OpenSessionResult>
  /**
   * Records a line said in the session that needs no reply (group chat): it reaches the model with
   * the session's next input, with its speaker. Kept within `conversation.group`'s budget.
   */
  observe(input: ObserveInput): { id: string }
  /** Voice activity: while someone speaks, idle turns wait, and a running idle turn is interrupted. */
  activity(input: ActivityInput): void
  /**
   * Follows a session: `onEvent` gets the events of every turn the engine starts in it by itself
   * (audience, idle) and its `audience_dropped` events. A followed session is live: with
   * `audience.idle.after_ms` its character speaks first (unless `live` is false: then once audience
   * messages arrive there); `reachable` false holds idle turns back, and `admitIdle` charges each
   * idle turn to the follower (false: not now). Returns the function that stops following.
   */
  follow(input: FollowSessionInput): () => void
  /**
   * The character says `text` as it is, with no model call: a turn with `trigger: "say"` (queued
   * behind the session's turns), its events sent to the session's followers (and so to the
   * connectors that follow it) as any reply's, and stored as the character's words.
   */
  say(input: SayInput): SayResult
  /**
   * Tells the character of something that happened (stored with the role `event`; the model sees
   * it in later turns); with `respond: true` a turn with `trigger: "event"` answers it now, its
   * events sent to the session's followers.
   */
  event(input: EventInput): Promise<EventResult>
  /** Stored history of a session with a character (absent: the default), oldest first. */
  history(input: SessionHistoryInput): Promise<StoredMessage[]>
  /** Deletes a session's history with one character, or with every character when none is named. */
  clear(input: ClearSessionInput): Promise<void>
  /** Sessions with a running turn. */
  active(): string[]
}

/** Audience messages (group chat, live stream) and the selector that picks which are answered. */
export interface CharpipeAudience {
  /**
   * Each message is recorded as an observed line with its speaker, and the session's selector
   * (`audience` policy) decides which the character answers, in turns it starts by itself
   * (`trigger: "audience"`, `llm_done.replying_to`). Follow them with `sessions.follow`.
   */
  send(input: AudienceInput): AudienceResult
  /** The session's audience queue now: waiting (best first), recently selected, recently dropped. */
  queue(input: AudienceQueueInput): AudienceQueueSnapshot
  /** Pins or drops a waiting audience message; false when no such message waits. */
  moderate(input: ModerateAudienceInput): boolean
  /** Audience counts since the start (for `/metrics`). */
  stats(): AudienceStatsResult
}

/** Read-only views of the engine, for the admin API, the page and `/metrics`. */
export interface CharpipeInspect {
  /** The context that would be sent for `input`, without calling the model. */
  preview(input: GenerateInput): Promise<PreviewResult>
  /** The ids of the characters served: the default character's first, then those of `characters`. */
  characters(): string[]
  /** Context processors with their effective settings. */
  processors(): ProcessorInfo[]
  /** Every tool the model is offered now, with its origin, and the state of each MCP server. */
  tools(): ToolListing
  /** Calls, errors and seconds spent per MCP tool since the start. */
  toolCalls?(): ToolCallStats[]
  /** Early transcripts prepared, adopted, dropped and ignored, and what the unused ones cost. */
  preflight?(): PreflightStats
}

/**
 * Records kept beside the history, in the history store (as durable as the history is): the server
 * keeps its stored `/v1/responses` so.
 */
export interface CharpipeRecords {
  /** Written once per `kind` and `id`: a second write of an id changes nothing. */
  keep(input: KeepRecordInput): Promise<void>
  /** A kept record's value; undefined when there is none. */
  read(input: ReadRecordInput): Promise<string | undefined>
}

/**
 * The people of a character's memory (`memory.per_person`): who spoke to it, what is kept about
 * each, and the links joining one person's ids on different sources. Person ids are checked (a
 * `BadRequestError` says what is wrong); `character` absent: the default character.
 */
export interface CharpipePeople {
  /** A directory of one character's people; throws when memory is disabled or the character unknown. */
  of(input?: { character?: string }): PeopleDirectory
}

export interface Charpipe {
  /**
   * Runs one turn; yields its events, `llm_done` exactly once and last. The loop ends once the turn
   * has left its session's lane (the session's next input then starts at once). Leaving the loop
   * early interrupts the turn. The turn starts at the first `next()`, as with an async generator.
   */
  generate(input: GenerateInput, options?: GenerateOptions): AsyncIterable<CharpipeEvent>
  /**
   * Runs one turn like `generate`, handing each event to `options.onEvent` as it happens; resolves
   * after `llm_done`. Cheaper per event than iterating: for servers relaying many turns at once. If
   * `onEvent` throws, the turn is interrupted and the promise rejects with that error.
   */
  run(input: GenerateInput, options: RunOptions): Promise<void>
  /** Subscribes to the events of every turn (also accepts LLM_CHUNK, LLM_SENTENCE, LLM_DONE, …). Returns an unsubscribe function. */
  on<T extends CharpipeEventType>(type: T | string, listener: CharpipeListener<T>): () => void
  off<T extends CharpipeEventType>(type: T | string, listener: CharpipeListener<T>): void
  /** Interrupts the running turn of a session (barge-in), and with `clearQueue` its queued turns too. Resolves when they have ended. */
  interrupt(session: string, options?: InterruptOptions): Promise<void>
  /** Applies a new config from the next turn on; running turns finish on the config they started with. */
  reload(config: CharpipeConfig): Promise<void>
  /** Interrupts running turns (stored as interrupted), waits for fact extractions of finished turns, closes stores and providers. */
  close(): Promise<void>
  readonly config: CharpipeConfig
  /** Long-term memory and knowledge base; undefined when `memory.enabled` is false. */
  readonly memory: MemoryStore | undefined
  /** This server's membership of a cluster (`cluster.enabled`); undefined otherwise. */
  readonly cluster?: Cluster
  readonly sessions: CharpipeSessions
  readonly audience: CharpipeAudience
  readonly inspect: CharpipeInspect
  readonly records: CharpipeRecords
  readonly people: CharpipePeople
}

export type { HistoryStore }
