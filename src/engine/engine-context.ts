/**
 * What belongs to one charpipe instance, shared by its parts: the stores it was given, the session
 * lanes, the event bus, and (in `state`) the current runtime and whether it is closed.
 * `createCharpipe` builds it once. Nothing of a single turn lives here: a turn's state is the
 * runner's (turn/run-turn.ts), and whether it may speak and act is its handle's authorization.
 *
 * `EngineContext` is read-only: its fields are set once. What changes lives in `EngineState`, and
 * each of its fields names the one module that writes it. The objects the context holds keep their
 * own state behind their methods (lanes, presence, opened sessions, background work, the bus, the
 * retired runtimes).
 */

import type { AudienceHub } from '../audience/create-audience-hub.js'
import type { AudienceClock } from '../audience/types.js'
import type { Cluster } from '../cluster/connect-cluster.js'
import type { ContextPipeline } from '../context/types.js'
import type { HistoryStore, MemoryStore } from '../memory/types.js'
import type { SliceQueue } from '../shared/create-slice-queue.js'
import type { Logger } from '../shared/logger.js'
import type { McpToolSource } from '../tools/mcp/create-mcp-tool-source.js'
import type { ToolRegistry } from '../tools/tool-registry.js'
import type { BackgroundWork } from './background-work.js'
import type { ReplyReadPacer } from './create-reply-read-pacer.js'
import type { TurnStartPacer } from './create-turn-start-pacer.js'
import type { EngineParts } from './engine-parts.js'
import type { EngineRuntime, ProviderOption } from './engine-runtime.js'
import type { EventBus } from './event-bus.js'
import type { OpenedSessions } from './open-session.js'
import type { RetiredRuntimes } from './retired-runtimes.js'
import type { SessionLanes } from './session-lanes.js'
import type { SessionPresence } from './session-presence.js'
import type { TurnObserver } from './types.js'

/** The stores the caller gave: used instead of the configured ones, and never closed here. */
export interface OwnedStores {
  historyStore?: HistoryStore
  memoryStore?: MemoryStore
}

export interface EngineContext {
  readonly logger: Logger
  readonly parts: EngineParts
  readonly pipeline: ContextPipeline
  readonly registry: ToolRegistry
  readonly bus: EventBus
  readonly lanes: SessionLanes
  /** Which characters are present in each session, and the lines each has heard. */
  readonly presence: SessionPresence
  /** Runtimes replaced by a reload while turns still ran on them; released when the last ends. */
  readonly retired: RetiredRuntimes
  readonly opened: OpenedSessions
  readonly background: BackgroundWork
  /** Background slices (memory writes): a starting turn holds them until its first chunk. */
  readonly slices: SliceQueue
  /** Turn starts spread over turns of the event loop (create-turn-start-pacer.ts). */
  readonly turnStarts: TurnStartPacer
  /** Replies' network reads visited within a share of each turn of the loop (create-reply-read-pacer.ts). */
  readonly replyReads: ReplyReadPacer
  /**
   * Lets the event loop reach its check phase, where the server's sockets send the frames they
   * hold: a turn waits for it between its reply and its history write. Absent on an engine whose
   * caller drives time (an injected clock), where nothing waits on the loop.
   */
  readonly passCheckPhase?: () => Promise<void>
  readonly owned: OwnedStores
  /** What every new runtime is built with besides its config. */
  readonly injected: OwnedStores & { provider?: ProviderOption }
  readonly cluster: Cluster | undefined
  /** Whether this instance connected the cluster itself (and so closes it). */
  readonly ownsCluster: boolean
  /** Watch every turn's events (turn/turn-event-path.ts, its last stage). */
  readonly observers: readonly TurnObserver[]
  /** What turn timing and preflight expiry read (a caller's clock, else `performance.now()`). */
  readonly clock: AudienceClock
  /** Picks among a character's greetings. */
  readonly random: (() => number) | undefined
  /** What changes over the instance's life. */
  readonly state: EngineState
}

/**
 * The engine's mutable fields; each is written by one module only, named beside it
 * (engine-state-writers.test.ts fails on an assignment anywhere else).
 */
export interface EngineState {
  /**
   * The runtime new turns take; a running turn keeps the one it took.
   * Writer: engine-lifecycle.ts (`reloadEngine`).
   */
  current: EngineRuntime
  /**
   * The reload in progress (reloads run one after another; close waits for it).
   * Writer: engine-lifecycle.ts (`reloadEngine`).
   */
  reloading: Promise<void>
  /** Writer: engine-lifecycle.ts (`closeEngine`). */
  closed: boolean
  /** The MCP servers' tools, once one is configured. Writer: engine-lifecycle.ts (`configureMcp`). */
  mcp: McpToolSource | undefined
  /**
   * Every session's audience (selector, idle turns, followers). Writer: create-audience-methods.ts,
   * once, while `createCharpipe` assembles the engine: the hub starts turns
   * through the engine it belongs to, so it can only be built once the engine exists.
   */
  audience: AudienceHub | undefined
}
