/**
 * The public face of the library (PROTOCOL.md "Library"): `createCharpipe(config)` returns a
 * `Charpipe`. The server, the CLI and users' programs drive the product only through this.
 */
import type { AudienceQueueSnapshot, AudienceStats, SessionEvent } from '../audience/create-audience-hub.js'
import type {
  AudienceMessage,
  AudienceStanding,
  AudienceTurnAdmitter,
  DroppedAudienceMessage,
  FollowOptions,
} from '../audience/types.js'
import type { Cluster } from '../cluster/connect-cluster.js'
import type { CharpipeConfig } from '../config/schema.js'
import type { PreviewResult, ProcessorInfo, Speaker, TurnInput } from '../context/types.js'
import type { HistoryStore, MemoryStore, StoredMessage } from '../memory/types.js'
import type {
  CharpipeEvent,
  CharpipeEventOf,
  CharpipeEventType,
  TurnNotStoredEvent,
} from '../shared/events.js'
import type { ChatMessage } from '../shared/messages.js'
import type { PreflightStats } from './preflight/preflight-stats.js'

export interface GenerateInput
  extends Partial<Pick<TurnInput, 'session'>>,
    Omit<TurnInput, 'session' | 'replyImages' | 'spokenText' | 'character'> {
  /** Images of the message being replied to (URL, `data:` URI or asset path). */
  replyImages?: string[]
  /**
   * The former name of `replyImages` (still accepted; `replyImages` wins when both are given).
   * @deprecated use `replyImages`; the wire frames keep `reply_images`.
   */
  reply_images?: string[]
  /** The id of the character spoken to (a key of `characters`); absent: the default character. */
  character?: string
  /**
   * An early transcript (`conversation.preflight`): the turn is prepared, nothing is sent or stored,
   * and the call ends at once with no event (unless the input is refused). The session's next input
   * without `preflight` adopts the prepared turn when its words match, and yields its events.
   */
  preflight?: boolean
}

/** A line said in a session that needs no reply (group chat); it reaches the model with the next input. */
export interface ObserveInput {
  session?: string
  speaker: Speaker
  text: string
  images?: string[]
}

export interface GenerateOptions {
  /**
   * Aborting ends the turn as interrupted (the reply is stored as far as it was spoken). Abort
   * with `{ heard }` as the reason (`controller.abort({ heard: text })`) and the stored reply is cut
   * at what was heard, as `interrupt` does.
   */
  signal?: AbortSignal
  /** Called with the messages of each model call as it is sent (to count the prompt, say). */
  onModelCall?: (messages: readonly ChatMessage[]) => void
  /**
   * Called after `llm_done` when the turn's write, which ran after it (an interrupted turn), failed
   * or could not be confirmed: the turn the client saw end is not (or may not be) in the history.
   */
  onTurnNotStored?: (event: TurnNotStoredEvent) => void
}

export interface InterruptOptions {
  /** What the user actually heard; the stored reply is cut there. */
  heard?: string
  /**
   * Also cancel the session's queued turns (`on_new_input: queue`); without it only the running
   * turn stops and the next queued one starts. Cancelled queued turns are not stored.
   * @default false
   */
  clearQueue?: boolean
  /** Only the turns with this character (an id of `characters`); absent: every character's in the session. */
  character?: string
}

export interface OpenSessionInput {
  session?: string
  /** An id of `characters`; absent: the default character. */
  character?: string
}

export interface OpenSessionResult {
  /** The greeting stored now, when the session was new and the character has one. */
  greeting?: StoredMessage
}

export interface AudienceInput {
  session?: string
  /** The character that answers the session's audience (an id of `characters`); absent: the default. */
  character?: string
  messages: AudienceMessage[]
  /**
   * Charges each turn that answers these messages to their origin (a connector's or a connection's
   * turn budget); refused, the messages wait in the selector until it pays. Absent: turns cost no one.
   */
  admitTurn?: AudienceTurnAdmitter
  /**
   * Who sent the messages (a connector, a client, a connection): message ids and speakers are
   * compared only within one source, so one source's id never makes another's message a duplicate.
   * Absent: one shared source.
   */
  source?: string
  /**
   * What the origin knows of each message that the audience weights do not (a connector's fan
   * medal, user level): a bonus to its priority, or observed but never answered.
   */
  weigh?: (message: AudienceMessage) => AudienceStanding | undefined
}

export interface AudienceResult {
  /** Messages recorded in the session (duplicates and blocked ones are not). */
  accepted: number
  dropped: DroppedAudienceMessage[]
}

export interface ActivityInput {
  session?: string
  /** A person in the session starts (true) or stops (false) speaking. */
  speaking: boolean
}

export interface ModerateAudienceInput {
  session: string
  character?: string
  /** The id of a waiting message. */
  id: string
  /** `pin`: answered before any other, never dropped for room; `drop`: not answered (reason `moderated`). */
  action: 'pin' | 'drop'
}

export interface AudienceStatsResult extends AudienceStats {
  /** Milliseconds from a message's arrival to its reply's first sentence, measured since the last call. */
  waits: number[]
}

/** What identifies a turn to a turn observer. */
export interface ObservedTurn {
  session: string
  turn: string
  /** What started it: an input, or the engine itself (audience, idle). */
  trigger: 'input' | 'audience' | 'idle'
}

/**
 * Watches turns from outside (metrics, tracing; `createCharpipe({ observers })`): called as each
 * turn starts to run; what it returns is handed every event of that turn once it has gone out
 * (`llm_done` last). Returning undefined leaves the turn unobserved.
 */
export type TurnObserver = (turn: ObservedTurn) => ((event: CharpipeEvent) => void) | undefined

/** One value of a gauge: its labels (none for a gauge without) and the number. */
export interface GaugeReading {
  labels?: Record<string, string>
  value: number
}

/**
 * A gauge of the engine's state that no turn event carries (early transcripts prepared, dropped and
 * ignored), read whenever a metrics system collects (`createCharpipe({ registerGauge })`).
 */
export interface GaugeDefinition {
  name: string
  help: string
  labelNames?: readonly string[]
  read(): readonly GaugeReading[]
}

/** Takes the engine's gauges into a metrics system (the server's `/metrics`, a program's own). */
export type RegisterGauge = (gauge: GaugeDefinition) => void

export type CharpipeListener<T extends CharpipeEventType> = (event: CharpipeEventOf<T>) => void

export interface Charpipe {
  /** Runs one turn; yields its events, `llm_done` exactly once and last. Leaving the loop early interrupts the turn. */
  generate(input: GenerateInput, options?: GenerateOptions): AsyncIterable<CharpipeEvent>
  /**
   * Runs one turn like `generate`, handing each event to `onEvent` as it happens; resolves after
   * `llm_done`. Cheaper per event than iterating: for servers relaying many turns at once. If
   * `onEvent` throws, the turn is interrupted and the promise rejects with that error.
   */
  run(input: GenerateInput, onEvent: (event: CharpipeEvent) => void, options?: GenerateOptions): Promise<void>
  /** Subscribes to the events of every turn (also accepts LLM_CHUNK, LLM_SENTENCE, LLM_DONE, …). Returns an unsubscribe function. */
  on<T extends CharpipeEventType>(type: T | string, listener: CharpipeListener<T>): () => void
  off<T extends CharpipeEventType>(type: T | string, listener: CharpipeListener<T>): void
  /** Interrupts the running turn of a session (barge-in), and with `clearQueue` its queued turns too. Resolves when they have ended. */
  interrupt(session: string, options?: InterruptOptions): Promise<void>
  /** Applies a new config from the next turn on; running turns finish on the config they started with. */
  reload(config: CharpipeConfig): Promise<void>
  /**
   * Records a line said in the session that needs no reply (group chat): it reaches the model with
   * the session's next input, with its speaker. Kept within `conversation.group`'s budget.
   */
  observe(input: ObserveInput): { id: string }
  /**
   * Audience messages (group chat, live stream): each is recorded as an observed line with its
   * speaker, and the session's selector (`audience` policy) decides which the character answers, in
   * turns it starts by itself (`trigger: "audience"`, `llm_done.replying_to`). Follow them with `subscribe`.
   */
  audience(input: AudienceInput): AudienceResult
  /** Voice activity: while someone speaks, idle turns wait, and a running idle turn is interrupted. */
  activity(input: ActivityInput): void
  /**
   * Follows a session: the listener gets the events of every turn the engine starts in it by itself
   * (audience, idle) and its `audience_dropped` events. A followed session is live: with
   * `audience.idle.after_ms` its character speaks first (unless `options.live` is false: then once
   * audience messages arrive there); `options.reachable` false holds idle turns back, and
   * `options.admitIdle` charges each idle turn to the follower (false: not now). Returns the
   * unsubscribe function.
   */
  subscribe(session: string, listener: (event: SessionEvent) => void, options?: FollowOptions): () => void
  /** The session's audience queue now: waiting (best first), recently selected, recently dropped. */
  audienceQueue(session: string, options?: { character?: string }): AudienceQueueSnapshot
  /** Pins or drops a waiting audience message; false when no such message waits. */
  moderateAudience(input: ModerateAudienceInput): boolean
  /** Audience counts since the start (for `/metrics`). */
  audienceStats(): AudienceStatsResult
  /** The context that would be sent for `input`, without calling the model. */
  preview(input: GenerateInput): Promise<PreviewResult>
  /** Stored history of a session with a character (absent: the default), oldest first. */
  history(
    session: string,
    options?: { limit?: number; beforeId?: string; character?: string },
  ): Promise<StoredMessage[]>
  /**
   * Keeps a record beside the history, in the history store (as durable as the history is): the
   * server keeps its stored `/v1/responses` so. Written once per `kind` and `id`: a second write of
   * an id changes nothing.
   */
  keepRecord(kind: string, id: string, value: string): Promise<void>
  /** A record kept with `keepRecord`; undefined when there is none. */
  readRecord(kind: string, id: string): Promise<string | undefined>
  /** Deletes a session's history with one character, or with every character when none is named. */
  clearSession(session: string, options?: { character?: string }): Promise<void>
  /**
   * Opens a session with a character: a new one gets the character's greeting, stored as its first
   * reply and returned (a session's first input does the same when no one opened it).
   */
  open(input?: OpenSessionInput): Promise<OpenSessionResult>
  /** The ids of the characters served: the default character's first, then those of `characters`. */
  characters(): string[]
  /** Sessions with a running turn. */
  activeSessions(): string[]
  /** Context processors with their effective settings (for the admin API and the web page). */
  listProcessors(): ProcessorInfo[]
  /** Every tool the model is offered now, with its origin, and the state of each MCP server. */
  listTools(): ToolListing
  /** Calls, errors and seconds spent per MCP tool since the start (for `/metrics`). */
  toolCallStats?(): ToolCallStats[]
  /** Early transcripts prepared, adopted, dropped and ignored, and what the unused ones cost (for `/metrics`). */
  preflightStats?(): PreflightStats
  readonly config: CharpipeConfig
  /** Long-term memory and knowledge base; undefined when `memory.enabled` is false. */
  readonly memory: MemoryStore | undefined
  /** This server's membership of a cluster (`cluster.enabled`); undefined otherwise. */
  readonly cluster?: Cluster
  /** Interrupts running turns (stored as interrupted), waits for fact extractions of finished turns, closes stores and providers. */
  close(): Promise<void>
}

export type { HistoryStore }

export interface ToolListing {
  tools: { name: string; description: string; server?: string }[]
  servers: { name: string; state: 'connecting' | 'ready' | 'failed'; error?: string }[]
}

export interface ToolCallStats {
  tool: string
  server: string
  calls: number
  errors: number
  seconds: number
}
