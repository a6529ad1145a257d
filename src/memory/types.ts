/**
 * Storage contracts. The context pipeline reads through these; the engine writes through them.
 * Implementations: SQLite (default), Redis, PostgreSQL, in-memory (tests, `history.store: memory`).
 */

/** Whose conversation: one character talking with one session (a user, a room, a device). */
export interface ConversationScope {
  character: string
  session: string
}

export interface StoredMessage {
  /** Store-assigned id (monotonic within a session). */
  id?: string
  /**
   * `event`: what opened a turn that nobody's words did, stored as what it is: the instruction of a
   * turn the character started on its own (an idle turn, `audience.idle`). It takes the user
   * message's place in its turn, and is replayed to the model as a note, not as someone's words.
   */
  role: 'user' | 'assistant' | 'event'
  content: string
  /** Assistant: the reply's emotion. User: the recognised emotion label, if any. */
  emotion?: string
  /** Assistant replies cut short by barge-in: stored as far as they were spoken. */
  interrupted?: boolean
  /**
   * User messages of a turn that failed before any reply: kept for the record (the page shows them),
   * but not sent to the model again, so the roles it sees keep alternating.
   */
  failed?: boolean
  /** Milliseconds since the epoch. */
  createdAt: number
  /** Turn id the message belongs to. */
  turn?: string
  /** Attachment references (image URLs, local asset paths) that came with a user message. */
  attachments?: string[]
  /**
   * Assistant: the character's inner thought before the reply (`character.thoughts`). Shown with
   * the history, never sent to the model as the reply's words.
   */
  thought?: string
}

export interface CompletedTurn {
  turn: string
  /**
   * What opened the turn: the user's message (`role: 'user'`), or an `event` (an idle turn's
   * instruction). Absent for a greeting stored before the session's first input.
   */
  user?: StoredMessage
  /** Absent when the turn produced no reply at all (error before any text). */
  assistant?: StoredMessage
  /**
   * In a cluster: the fencing number of the session lock the turn held. A store that keeps fences
   * (PostgreSQL) refuses a turn whose fence is below one it already stored for the session: the
   * turn outlived its lock. Stores that do not keep them ignore it.
   */
  fence?: number
}

export interface ListMessagesOptions {
  /** Most messages returned (newest last). */
  limit?: number
  /** Only messages with an id before this one (paging back). */
  beforeId?: string
}

/**
 * Lets the caller of a write give up on it for certain (see `createCommitGate`). A store that takes
 * it calls `watch()` as the write starts, before its first wait, and `mayCommit()` just before it
 * sends what commits the write, and commits only when that says true. A write given up on before
 * then is certainly not stored.
 */
export interface CommitGate {
  /** The store will ask `mayCommit()` before it commits this write. */
  watch(): void
  /** Asked once, just before the commit is sent: false when the caller has given up (do not commit). */
  mayCommit(): boolean
}

export interface AppendTurnOptions {
  /**
   * Milliseconds since the epoch: a write that would commit after this refuses itself (stores over
   * the network check it on the server, in the statement that commits), so once it has passed, a
   * read by turn id (`findTurn`) tells for certain whether the turn is stored.
   */
  deadline?: number
  /**
   * The id of a turn this one replaces (a regenerated reply): when it is the session's newest turn
   * and inside the current context, it is removed in the same write, and this turn takes its place.
   * Otherwise it stays, and this turn is added after it.
   */
  replaces?: string
  /** Decides whether the write may still commit once its caller could have given up on it. */
  commitGate?: CommitGate
}

export interface HistoryStore {
  /** The last `maxTurns` turns, oldest first, as messages. Must not scan the whole session. */
  loadRecent(scope: ConversationScope, maxTurns: number): Promise<StoredMessage[]>
  /**
   * Stores a finished turn atomically (both messages or neither), once: a turn whose id the session
   * already has is not stored again (the call succeeds and changes nothing), whichever server sends it.
   */
  appendTurn(scope: ConversationScope, turn: CompletedTurn, options?: AppendTurnOptions): Promise<void>
  /** The stored messages of one turn, by turn id (empty when the session does not have it). */
  findTurn(scope: ConversationScope, turn: string): Promise<StoredMessage[]>
  /**
   * Whether the session has the turn, as `findTurn(...).length > 0` says, without reading its
   * messages: asked after every remembered turn, and a turn's text can be a megabyte.
   */
  hasTurn?(scope: ConversationScope, turn: string): Promise<boolean>
  /**
   * Whether the turn is stored, answered only once no write of it bound by `deadline` (see
   * `AppendTurnOptions.deadline`) can still land: it waits for a write of the session in progress
   * to commit or roll back, and for the deadline to pass on the store's own clock. Stores over the
   * network have it; without it, `findTurn` after the deadline is the answer (nothing is in flight).
   */
  settleTurn?(scope: ConversationScope, turn: string, deadline: number): Promise<boolean>
  listMessages(scope: ConversationScope, options?: ListMessagesOptions): Promise<StoredMessage[]>
  /** Number of stored turns in a session (for reset policies). */
  countTurns(scope: ConversationScope): Promise<number>
  /** Removes a session's history. */
  clearSession(scope: ConversationScope): Promise<void>
  /**
   * Starts a fresh context (history reset policies): later `loadRecent` calls return only what is
   * stored after this point; `listMessages` still shows everything.
   */
  resetContext(scope: ConversationScope): Promise<void>
  listSessions(character: string): Promise<string[]>
  /**
   * Replaces what opened a turn (its user message) with `marker`, attachments dropped, and leaves
   * the reply: how a person's words are erased from a history. Returns the messages changed (0
   * when the session does not have the turn). A store without it cannot erase words.
   */
  redactTurn?(scope: ConversationScope, turn: string, marker: string): Promise<number>
  close(): Promise<void>
}

export interface MemoryRecord {
  id: string
  /** Who the memory belongs to; by default the session id. */
  scope: string
  text: string
  speaker?: string
  /** Milliseconds since the epoch. */
  time: number
  metadata?: Record<string, unknown>
  /** Turn id the memory came from, when it came from a turn. */
  sourceTurn?: string
}

export interface MemoryHit extends MemoryRecord {
  score: number
  /** `memory` (past conversation) or `knowledge` (knowledge base chunk). */
  kind: 'memory' | 'knowledge'
  /** Where a knowledge chunk came from (document name). */
  sourceName?: string
}

export interface MemorySearchOptions {
  scope: string
  k: number
  /** Token budget for the whole selection; hits beyond it are dropped. */
  tokenBudget?: number
  /**
   * Memories of these turns are not returned (they are still in the prompt's history). A store
   * that does not support it returns them; callers filter again.
   */
  excludeSourceTurns?: readonly string[]
}

/** What the context pipeline needs from long-term memory. */
export interface MemoryRetriever {
  search(query: string, options: MemorySearchOptions): Promise<MemoryHit[]>
}

export interface AddMemoryInput {
  scope: string
  text: string
  speaker?: string
  /** Milliseconds since the epoch; default now. */
  time?: number
  metadata?: Record<string, unknown>
  /** Turn id the memory came from. */
  sourceTurn?: string
}

export interface MemoryChange {
  id: string
  memoryId: string
  event: 'add' | 'update' | 'delete'
  oldText?: string
  newText?: string
  /** Milliseconds since the epoch. */
  time: number
}

export interface KnowledgeDocument {
  id: string
  name: string
  chunks: number
  /** Milliseconds since the epoch. */
  createdAt: number
}

export interface ListMemoriesOptions {
  scope?: string
  /**
   * Only memories whose scope starts with this (a person's memories are kept under scopes sharing
   * one prefix, see `personScopeOf`). With `scope` both must hold.
   */
  scopePrefix?: string
  /**
   * Only the memories taken from this turn (`sourceTurn`). A store written before this option may
   * list others too: callers that act on the list check `sourceTurn` again.
   */
  sourceTurn?: string
  /** @default 100 */
  limit?: number
  offset?: number
}

/**
 * Long-term memory and the knowledge base (SPEC R4.3): the operations users know from memory
 * libraries, scoped by a string (the session id unless the caller says otherwise). `search` returns
 * memories and knowledge chunks ranked together.
 */
export interface MemoryStore extends MemoryRetriever {
  add(input: AddMemoryInput): Promise<MemoryRecord>
  get(id: string): Promise<MemoryRecord | undefined>
  list(options: ListMemoriesOptions): Promise<MemoryRecord[]>
  update(
    id: string,
    patch: Partial<Pick<MemoryRecord, 'text' | 'speaker' | 'time' | 'metadata'>>,
  ): Promise<MemoryRecord | undefined>
  delete(id: string): Promise<boolean>
  /**
   * Deletes the memories taken from `turn` in `scope` and returns their ids, once no write of the
   * scope is under way (it waits for one to commit or roll back): a memory of the turn whose write
   * had not committed yet is deleted too, never missed and left to land after the delete. Stores
   * shared over the network have it; without it, `list` then `delete` (nothing is in flight).
   */
  forgetTurn?(scope: string, turn: string): Promise<string[]>
  deleteAll(scope: string): Promise<number>
  /** Every change of one memory, oldest first. */
  history(id: string): Promise<MemoryChange[]>
  addKnowledge(document: { name: string; text: string }): Promise<KnowledgeDocument>
  listKnowledge(): Promise<KnowledgeDocument[]>
  removeKnowledge(id: string): Promise<boolean>
  close(): Promise<void>
}
