/**
 * What the members of `Charpipe` (types.ts) take and return: a turn's input and options, the
 * inputs of the session, audience and record groups, and what the inspection methods report.
 */
import type { AudienceStats, SessionEvent } from '../audience/create-audience-hub.js'
import type {
  AudienceKeeper,
  AudienceMessage,
  AudienceStanding,
  AudienceTurnAdmitter,
  DroppedAudienceMessage,
  FollowOptions,
} from '../audience/types.js'
import type { Speaker, TurnInput } from '../context/types.js'
import type { StoredMessage } from '../memory/types.js'
import type { CharpipeEvent, TurnNotStoredEvent, TurnTrigger } from '../shared/events.js'
import type { ChatMessage } from '../shared/messages.js'

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
   * Who sent the input, when not a client of its own: `connector` for a connector's 1:1 chat, so
   * `conversation.silence.triggers` reads `connector` for the turn (its events still say
   * `trigger: "input"`).
   */
  source?: 'connector'
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

export interface RunOptions extends GenerateOptions {
  /** Called with each event of the turn as it happens, `llm_done` last. */
  onEvent: (event: CharpipeEvent) => void
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
   * turn budget); refused, the messages wait in the selector until it pays. Idle turns in the quiet
   * after the session's last lines are charged to the origin of those lines too; refused, the idle
   * turn waits. Absent: turns cost no one.
   */
  admitTurn?: AudienceTurnAdmitter
  /**
   * Told when these messages make the session live on the origin's account and when it stops being
   * live (nothing more for the server to start there by itself), so an origin that follows no
   * session (an HTTP client) can bound the sessions it keeps live.
   */
  keeper?: AudienceKeeper
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

export interface SessionHistoryInput {
  session: string
  /** An id of `characters`; absent: the default character. */
  character?: string
  /** At most this many messages, the latest. */
  limit?: number
  /** Only messages stored before the one with this id (the next page back). */
  beforeId?: string
}

export interface ClearSessionInput {
  session: string
  /** An id of `characters`; absent: the session is deleted with every character. */
  character?: string
}

export interface FollowSessionInput extends FollowOptions {
  session: string
  /** Called with every event of the turns the engine starts in the session, and its `audience_dropped`. */
  onEvent: (event: SessionEvent) => void
}

export interface AudienceQueueInput {
  session: string
  /** The character answering the session's audience; absent: the default. */
  character?: string
}

export interface KeepRecordInput {
  /** The kind of record: a lower-case name (`[a-z][a-z0-9_-]*`, up to 64 characters). */
  kind: string
  id: string
  value: string
}

export interface ReadRecordInput {
  kind: string
  id: string
}

export interface ActivityInput {
  session?: string
  /** A person in the session starts (true) or stops (false) speaking. */
  speaking: boolean
}

export interface SayInput {
  session?: string
  /** The character that speaks (an id of `characters`); absent: the default. */
  character?: string
  /** The words, said exactly as given (up to `conversation.max_input_chars`). */
  text: string
  /** One of the character's emotions (or an alias); anything else, or absent: its default emotion. */
  emotion?: string
}

export interface SayResult {
  /** The turn that says the words (`trigger: "say"`); its events go to the session's followers. */
  turn: string
}

export interface EventInput {
  session?: string
  /** The character the event is told to (an id of `characters`); absent: the default. */
  character?: string
  /** What happened, in words (up to `conversation.max_input_chars`). */
  text: string
  /**
   * Answer it now: a turn with `trigger: "event"` (its events go to the session's followers). False:
   * it is only stored, and the model sees it with the session's later turns.
   * @default false
   */
  respond?: boolean
}

export interface EventResult {
  /** The event's id. */
  id: string
  /** The turn answering it, when `respond` was true. */
  turn?: string
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
  /** What started it: an input, the engine itself (audience, idle), a `say` or an `event`. */
  trigger: TurnTrigger
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
