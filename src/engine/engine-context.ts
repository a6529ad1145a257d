/**
 * The state one charpipe instance shares among its parts: the current runtime (swapped by
 * `reload`), the session lanes, the event bus, the stores it was given and whether it is closed.
 * `createCharpipe` builds it once; the modules for turns, characters, the cluster and the public
 * methods read and update it here, so each can live in its own file instead of one closure.
 */
import type { AudienceHub } from '../audience/create-audience-hub.js'
import type { Cluster } from '../cluster/connect-cluster.js'
import type { ContextPipeline } from '../context/types.js'
import type { HistoryStore, MemoryStore } from '../memory/types.js'
import type { Logger } from '../shared/logger.js'
import type { McpToolSource } from '../tools/mcp/create-mcp-tool-source.js'
import type { ToolRegistry } from '../tools/tool-registry.js'
import type { BackgroundWork } from './background-work.js'
import type { EngineParts } from './engine-parts.js'
import type { EngineRuntime, ProviderOption } from './engine-runtime.js'
import type { EventBus } from './event-bus.js'
import type { ObservedLines } from './observed-lines.js'
import type { OpenedSessions } from './open-session.js'
import type { PreflightSlots } from './preflight/create-preflight-slots.js'
import type { SessionLanes } from './session-lanes.js'

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
  readonly preflightSlots: PreflightSlots
  readonly observedLines: ObservedLines
  /** Runtimes replaced by a reload while turns still ran on them; released when the last ends. */
  readonly retired: Set<EngineRuntime>
  readonly opened: OpenedSessions
  readonly background: BackgroundWork
  readonly owned: OwnedStores
  /** What every new runtime is built with besides its config. */
  readonly injected: OwnedStores & { provider?: ProviderOption }
  readonly cluster: Cluster | undefined
  /** Whether this instance connected the cluster itself (and so closes it). */
  readonly ownsCluster: boolean
  /** Picks among a character's greetings. */
  readonly random: (() => number) | undefined
  current: EngineRuntime
  reloading: Promise<void>
  closed: boolean
  mcp: McpToolSource | undefined
  /** Every session's audience (selector, idle turns, followers); set once the engine is built. */
  audience: AudienceHub | undefined
}
