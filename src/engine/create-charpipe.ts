/**
 * `createCharpipe(config)`: the library's entry point (PROTOCOL.md "Library"). It owns the current
 * runtime (swapped by `reload`), the per-session lanes, the event bus and the tool registry, and
 * hands each turn to the turn runner (turn/run-turn.ts). With `cluster.enabled` it also joins the cluster: interrupts and
 * new inputs are sent to the other servers, and theirs stop the turns running here.
 *
 * This file is the overview: it builds the shared state (engine-context.ts) and assembles the
 * public object from the modules beside it: turns (turn/), the characters (character-runtime.ts),
 * preflight (preflight/), the cluster (cluster-link.ts), the top-level members
 * (create-turn-methods.ts, interrupt-turns.ts, engine-lifecycle.ts) and the groups
 * (create-session-methods.ts, create-audience-methods.ts, create-inspect-methods.ts,
 * create-record-methods.ts), then adds the former names (deprecated-charpipe-members.ts).
 */
import { createSystemClock } from '../audience/create-system-clock.js'
import type { AudienceClock } from '../audience/types.js'
import type { Cluster } from '../cluster/connect-cluster.js'
import type { ContextPipeline } from '../context/types.js'
import type { HistoryStore, MemoryStore } from '../memory/types.js'
import { createSliceQueue } from '../shared/create-slice-queue.js'
import { getLogger, type Logger } from '../shared/logger.js'
import { nextTurnOfEventLoop } from '../shared/next-turn-of-event-loop.js'
import { createToolRegistry } from '../tools/tool-registry.js'
import type { Tool } from '../tools/types.js'
import { createBackgroundWork } from './background-work.js'
import { connectOwnCluster, createClusterLink } from './cluster-link.js'
import { createAudienceMethods } from './create-audience-methods.js'
import { createInspectMethods } from './create-inspect-methods.js'
import { createPeopleMethods } from './create-people-methods.js'
import { createRecordMethods } from './create-record-methods.js'
import { createReplyReadPacer, unpacedReplyReads } from './create-reply-read-pacer.js'
import { createSessionMethods } from './create-session-methods.js'
import { createTurnClock } from './create-turn-clock.js'
import { createTurnMethods } from './create-turn-methods.js'
import { createTurnStartPacer, unpacedTurnStarts } from './create-turn-start-pacer.js'
import { addDeprecatedMembers, type CharpipeWithDeprecatedMembers } from './deprecated-charpipe-members.js'
import type { EngineContext } from './engine-context.js'
import { closeEngine, configureMcp, reloadEngine } from './engine-lifecycle.js'
import type { EngineParts } from './engine-parts.js'
import { createEngineRuntime, type ProviderOption } from './engine-runtime.js'
import { createEventBus } from './event-bus.js'
import { interruptTurns } from './interrupt-turns.js'
import { loadEngineParts } from './load-engine-parts.js'
import { createObservedLines } from './observed-lines.js'
import { createOpenedSessions } from './open-session.js'
import { createEnginePreflight } from './preflight/create-engine-preflight.js'
import { type CharpipeConfigSource, resolveConfig } from './resolve-config.js'
import { createRetiredRuntimes } from './retired-runtimes.js'
import { createSessionLanes } from './session-lanes.js'
import { createSessionPresence } from './session-presence.js'
import { startWithheldTurn } from './turn/start-turn.js'
import type { Charpipe, RegisterGauge, TurnObserver } from './types.js'

export type { CharpipeConfigSource } from './resolve-config.js'

export interface CreateCharpipeOptions {
  /** A history store to use instead of the one `history.store` names (the caller closes it). */
  historyStore?: HistoryStore
  /** A long-term memory store to use instead of the configured one (the caller closes it). */
  memoryStore?: MemoryStore
  /** A provider instance, or a factory called whenever the provider config changes. */
  provider?: ProviderOption
  /**
   * Where the engine logs. @default the process-wide logger (`setLogger`); when the program chose
   * none, only warnings and errors, each as one process warning (`CharpipeWarning`) on stderr
   */
  logger?: Logger
  /** Tools the model may call (ReAct loop, SPEC R1.4); those of `tools.mcp_servers` join them. */
  tools?: readonly Tool[]
  /** Replaces individual stages (tests, custom integrations). */
  parts?: Partial<EngineParts>
  /** A context pipeline to use instead of the builtin one. */
  pipeline?: ContextPipeline
  /**
   * A cluster membership to use instead of the one `cluster.enabled` connects (the caller closes
   * it). With neither, turns are ordered within this process only.
   */
  cluster?: Cluster
  /** Picks among a character's greetings (tests pass a fixed one). @default Math.random */
  random?: () => number
  /**
   * Where the audience selector, idle turns, turn timing and preflight expiry read time (tests pass
   * a manual clock). With a clock of its own the engine starts every turn at once: turn starts are
   * spread over turns of the real event loop (create-turn-start-pacer.ts), which a caller who
   * drives time does not run. @default the system clock (`performance.now()` for turn timing)
   */
  clock?: AudienceClock
  /** Watch every turn's events as they go out (metrics, tracing). */
  observers?: readonly TurnObserver[]
  /** Takes the gauges of engine state no turn event carries (early transcripts), once, for a metrics system. */
  registerGauge?: RegisterGauge
}

/** Creates the character engine from a config object or a config file path. */
export async function createCharpipe(
  source: CharpipeConfigSource,
  options: CreateCharpipeOptions = {},
): Promise<CharpipeWithDeprecatedMembers> {
  const logger = options.logger ?? getLogger('engine')
  const parts = await loadEngineParts(options.parts)
  const owned = { historyStore: options.historyStore, memoryStore: options.memoryStore }
  // Read by the registry on every listing, so MCP tools connected later (or after a reload) show.
  let context: EngineContext | undefined
  const registry = createToolRegistry(options.tools, {
    sources: () => (context?.state.mcp ? [context.state.mcp] : []),
  })
  const pipeline = options.pipeline ?? parts.createContextPipeline()
  const bus = createEventBus(logger)
  const lanes = createSessionLanes()
  const observedLines = createObservedLines()
  const opened = createOpenedSessions()
  const background = createBackgroundWork(logger)
  const clock = options.clock ?? createTurnClock()
  const slices = createSliceQueue({ clock })
  const injected = { provider: options.provider, ...owned }
  const current = await createEngineRuntime({
    ...injected,
    config: await resolveConfig(source, logger),
    parts,
    logger,
    slices,
  })
  const ownsCluster = !options.cluster && current.config.cluster.enabled
  const cluster = options.cluster ?? (ownsCluster ? await connectOwnCluster(current, logger) : undefined)
  context = {
    logger,
    parts,
    pipeline,
    registry,
    bus,
    lanes,
    presence: createSessionPresence(observedLines),
    retired: createRetiredRuntimes(),
    opened,
    background,
    slices,
    turnStarts: options.clock ? unpacedTurnStarts : createTurnStartPacer(),
    replyReads: options.clock ? unpacedReplyReads : createReplyReadPacer(),
    ...(options.clock ? {} : { passCheckPhase: nextTurnOfEventLoop }),
    owned,
    injected,
    cluster,
    ownsCluster,
    clock,
    random: options.random,
    observers: options.observers ?? [],
    state: { current, reloading: Promise.resolve(), closed: false, mcp: undefined, audience: undefined },
  }
  const engine = context
  await configureMcp(engine, current.config.tools.mcp_servers)

  const clusterLink = createClusterLink(engine)
  const preflights = createEnginePreflight({
    context: engine,
    clusterLink,
    observedLines,
    launch: (input) => startWithheldTurn(engine, input),
    registerGauge: options.registerGauge,
  })
  await clusterLink.listen()

  const starter = { context: engine, prepared: preflights, clusterLink }
  const audience = createAudienceMethods(starter, options.clock ?? createSystemClock())
  const charpipe: Charpipe = {
    ...createTurnMethods(starter),
    on: (type, listener) => bus.on(type, listener),
    off: (type, listener) => bus.off(type, listener),
    interrupt: (session, interruptOptions = {}) =>
      interruptTurns(engine, clusterLink, session, interruptOptions),
    reload: (config) => reloadEngine(engine, config),
    close: () => closeEngine(engine),
    get config() {
      return engine.state.current.config
    },
    get memory() {
      return engine.state.current.memoryStore
    },
    cluster,
    sessions: { ...createSessionMethods(engine), ...audience.sessions },
    audience: audience.audience,
    inspect: { ...createInspectMethods(engine), preflight: () => preflights.stats() },
    records: createRecordMethods(engine),
    people: createPeopleMethods(engine),
  }
  return addDeprecatedMembers(charpipe)
}
