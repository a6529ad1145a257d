/**
 * `createCharpipe(config)`: the library's entry point (PROTOCOL.md "Library"). It owns the current
 * runtime (swapped by `reload`), the per-session lanes, the event bus and the tool registry, and
 * hands each turn to `executeTurn`. With `cluster.enabled` it also joins the cluster: interrupts and
 * new inputs are sent to the other servers, and theirs stop the turns running here.
 */
import { randomUUID } from 'node:crypto'
import type { Cluster } from '../cluster/connect-cluster.js'
import type { ClusterInterrupt } from '../cluster/turn-coordinator.js'
import { loadConfig, parseConfig } from '../config/load-config.js'
import type { CharpipeConfig } from '../config/schema.js'
import {
  createUnknownCharacterError,
  findCharacter,
  isDefaultCharacter,
  listCharacterIds,
} from '../config/select-character-config.js'
import { checkPipelineConfig } from '../context/check-pipeline-config.js'
import type { ContextPipeline, TurnInput } from '../context/types.js'
import type { HistoryStore, MemoryStore } from '../memory/types.js'
import { BadRequestError } from '../shared/errors.js'
import type { CharpipeEvent } from '../shared/events.js'
import { createChildLogger, getLogger, type Logger } from '../shared/logger.js'
import type { McpToolSource } from '../tools/mcp/create-mcp-tool-source.js'
import { createToolRegistry } from '../tools/tool-registry.js'
import type { Tool } from '../tools/types.js'
import { createBackgroundWork } from './background-work.js'
import {
  createTurnOutput as createTurnOutputOf,
  type TurnOutput,
  type TurnSink,
} from './create-turn-output.js'
import type { EngineParts } from './engine-parts.js'
import {
  createEngineRuntime,
  createPipelineServices,
  type EngineRuntime,
  type ProviderOption,
  releaseRuntimeParts,
} from './engine-runtime.js'
import { createEventBus } from './event-bus.js'
import { createEventChannel } from './event-channel.js'
import { executeTurn } from './execute-turn.js'
import { createObservedLines } from './observed-lines.js'
import { createOpenedSessions, forgetOpenedSession, openSession } from './open-session.js'
import { conversationScopeOf } from './persist-turn.js'
import { createPreflightController, type StartedTurn } from './preflight/create-preflight-controller.js'
import type { PreflightGate } from './preflight/create-preflight-gate.js'
import { createPreflightSlots } from './preflight/create-preflight-slots.js'
import { renderGroupInput } from './render-group-input.js'
import { selectCharacterRuntime } from './select-character-runtime.js'
import { abortTurn, createSessionLanes, laneKeyOf, parseLaneKey, type TurnHandle } from './session-lanes.js'
import type { Charpipe, GenerateInput, GenerateOptions, InterruptOptions } from './types.js'
import {
  checkCharacterField,
  validateGenerateInput,
  validateObserveInput,
  validateSessionField,
} from './validate-generate-input.js'

export interface CreateCharpipeOptions {
  /** A history store to use instead of the one `history.store` names (the caller closes it). */
  historyStore?: HistoryStore
  /** A long-term memory store to use instead of the configured one (the caller closes it). */
  memoryStore?: MemoryStore
  /** A provider instance, or a factory called whenever the provider config changes. */
  provider?: ProviderOption
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
}

export type CharpipeConfigSource = CharpipeConfig | { configPath: string }

async function resolveConfig(source: CharpipeConfigSource, logger: Logger): Promise<CharpipeConfig> {
  if (
    source &&
    typeof source === 'object' &&
    'configPath' in source &&
    typeof source.configPath === 'string'
  ) {
    return (await loadConfig(source.configPath, { checks: [checkPipelineConfig] })).config
  }
  return parseConfig(source, { source: 'createCharpipe', logger, checks: [checkPipelineConfig] }).config
}

const partNames = [
  'createProvider',
  'createContextPipeline',
  'createModelCapabilities',
  'createTokenCounter',
  'createReplyParser',
  'replyParserOptionsFromConfig',
  'applyDisplayRegexRules',
  'createHistoryStore',
  'createHistoryResetPolicy',
  'createMemoryStore',
  'rememberTurn',
] as const satisfies readonly (keyof EngineParts)[]

/** The builtin stages are loaded only when some are not replaced (they pull in SQLite and the SDKs). */
async function loadParts(overrides: Partial<EngineParts> = {}): Promise<EngineParts> {
  if (partNames.every((name) => typeof overrides[name] === 'function')) return overrides as EngineParts
  const { defaultEngineParts } = await import('./default-engine-parts.js')
  return { ...defaultEngineParts, ...overrides }
}

/**
 * In a cluster the running turn is the one holding the session's lock, on whichever server: an
 * interrupt stops it there, and queued turns (waiting here for the lock) only with `clearQueue`.
 */
function selectInterrupted(turns: TurnHandle[], clearQueue: boolean | undefined): TurnHandle[] {
  return clearQueue ? turns : turns.filter((handle) => handle.running)
}

/** The first turn of each character's lane among a session's turns (they are in lane order). */
function firstOfEachLane(turns: TurnHandle[]): TurnHandle[] {
  const seen = new Set<string>()
  return turns.filter((handle) => {
    const lane = handle.character ?? ''
    if (seen.has(lane)) return false
    seen.add(lane)
    return true
  })
}

/** Loaded only with `cluster.enabled` (it needs ioredis). */
async function connectOwnCluster(runtime: EngineRuntime, logger: Logger): Promise<Cluster> {
  const { connectCluster } = await import('../cluster/connect-cluster.js')
  return connectCluster(runtime.config, createChildLogger(logger, 'cluster'))
}

/** Creates the character engine from a config object or a config file path. */
export async function createCharpipe(
  source: CharpipeConfigSource,
  options: CreateCharpipeOptions = {},
): Promise<Charpipe> {
  const logger = options.logger ?? getLogger('engine')
  const parts = await loadParts(options.parts)
  const owned = { historyStore: options.historyStore, memoryStore: options.memoryStore }
  let mcp: McpToolSource | undefined
  const registry = createToolRegistry(options.tools, { sources: () => (mcp ? [mcp] : []) })
  const pipeline = options.pipeline ?? parts.createContextPipeline()
  const bus = createEventBus(logger)
  const lanes = createSessionLanes()
  const preflightSlots = createPreflightSlots()
  const observedLines = createObservedLines()
  const retired = new Set<EngineRuntime>()
  const opened = createOpenedSessions()
  const background = createBackgroundWork(logger)
  const injected = { provider: options.provider, ...owned }
  let current = await createEngineRuntime({
    ...injected,
    config: await resolveConfig(source, logger),
    parts,
    logger,
  })
  let reloading: Promise<void> = Promise.resolve()
  let closed = false
  const ownsCluster = !options.cluster && current.config.cluster.enabled
  const cluster = options.cluster ?? (ownsCluster ? await connectOwnCluster(current, logger) : undefined)

  /** MCP servers connect in the background; the module (and the SDK) load only when one is configured. */
  const configureMcp = async (servers: CharpipeConfig['tools']['mcp_servers']) => {
    if (mcp) {
      mcp.reconfigure(servers)
      return
    }
    if (Object.keys(servers).length === 0) return
    const { createMcpToolSource } = await import('../tools/mcp/create-mcp-tool-source.js')
    mcp = createMcpToolSource({
      servers,
      logger,
      reservedNames: new Set(registry.list().map((tool) => tool.name)),
    })
  }
  await configureMcp(current.config.tools.mcp_servers)

  const releaseRuntime = (view: EngineRuntime) => {
    // A character's view counts its turns on the runtime it was made from.
    const runtime = view.base ?? view
    runtime.activeTurns--
    if (runtime.activeTurns === 0 && retired.delete(runtime)) {
      void releaseRuntimeParts(runtime, current, owned, logger)
    }
  }

  /** The runtime of a character on `runtime` (throws bad_request naming an unknown id). */
  const characterRuntime = (runtime: EngineRuntime, character: string | undefined) =>
    selectCharacterRuntime(runtime, character, { parts, logger })

  /**
   * The character of an input, checked now (an unknown id is refused before anything runs): its id
   * when it is one of `characters`, nothing for the default character however it was named.
   */
  const resolveCharacter = <T extends { character?: string }>(input: T): T => {
    const chosen = input.character
    if (isDefaultCharacter(current.config, chosen)) delete input.character
    else if (!findCharacter(current.config, chosen))
      throw createUnknownCharacterError(current.config, chosen!)
    return input
  }

  /** Where a session's history with a character is kept. */
  const scopeOf = (session: string, character: string | undefined) =>
    conversationScopeOf(characterRuntime(current, character), session)

  const createTurnOutput = (turn: string, session: string, sink: TurnSink | undefined) =>
    createTurnOutputOf({
      bus,
      turn,
      session,
      sink,
      readDefaultEmotion: () => current.config.character.default_emotion,
    })

  /** Puts a turn in its session's lane and runs it there (the returned handle's `ended` tells when it is over). */
  const launchTurn = (
    handle: TurnHandle,
    input: TurnInput,
    output: TurnOutput,
    mode: 'interrupt' | 'queue',
    turnOptions: GenerateOptions,
    gate?: PreflightGate,
  ) => {
    handle.character = input.character
    const previous = lanes.enter(handle, mode)
    handle.ended = executeTurn({
      handle,
      input,
      previous,
      parts,
      pipeline,
      registry,
      logger,
      emit: output.emit,
      acquireRuntime: () => {
        const runtime = current
        // A reload that removed the character meanwhile: the turn ends with bad_request.
        const view = characterRuntime(runtime, input.character)
        runtime.activeTurns++
        return view
      },
      releaseRuntime,
      openSession: (runtime) =>
        openSession({ runtime, session: input.session, opened, random: options.random }),
      background,
      coordinator: cluster?.coordinator,
      ...(turnOptions.onModelCall ? { onModelCall: turnOptions.onModelCall } : {}),
      ...(gate ? { preflight: gate } : {}),
    }).finally(() => {
      if (!output.isDone()) output.closeWithError(new Error('the turn ended without a result'))
      lanes.leave(handle)
    })
  }

  const createHandle = (session: string, preflight: boolean): TurnHandle => ({
    session,
    turn: randomUUID(),
    controller: new AbortController(),
    running: false,
    ended: Promise.resolve(),
    ...(preflight ? { preflight } : {}),
  })

  const preflights = createPreflightController({
    slots: preflightSlots,
    lanes,
    observedLines,
    readConfig: () => current.config,
    resolveInput: resolveCharacter,
    launch(input, gate) {
      const handle = createHandle(input.session, true)
      const output = createTurnOutput(handle.turn, input.session, undefined)
      // Queued, never interrupting: it starts only behind turns that are already ending.
      launchTurn(handle, input, output, 'queue', {}, gate)
      return { handle, isDone: output.isDone, attach: output.attach }
    },
    onAdopted(handle) {
      if (cluster && current.config.conversation.on_new_input === 'interrupt') announceNewInput(handle)
    },
  })

  const startTurn = (
    raw: GenerateInput,
    push: (event: CharpipeEvent) => void,
    close: () => void,
    turnOptions: GenerateOptions = {},
  ): StartedTurn => {
    const session = typeof raw?.session === 'string' && raw.session ? raw.session : 'default'
    const handle = createHandle(session, false)
    const output = createTurnOutput(handle.turn, session, { push, close })
    try {
      if (closed) throw new BadRequestError('this charpipe instance is closed')
      const validated = validateGenerateInput(raw, {
        maxInputChars: current.config.conversation.max_input_chars,
      })
      // Lines observed since the last input go with this one, and are stored with it.
      const input = renderGroupInput(
        validated,
        observedLines.drain(validated.session),
        current.config.conversation.group,
      )
      output.session = input.session
      resolveCharacter(input)
      // The turn prepared from an early transcript with these words becomes this input's reply.
      const adopted = preflights.claim(input, { push, close })
      if (adopted) return adopted
      const mode = current.config.conversation.on_new_input
      // The server running this session's turn elsewhere stops it; this turn then waits for its lock.
      if (mode === 'interrupt' && cluster) announceNewInput(handle)
      launchTurn(handle, input, output, mode, turnOptions)
    } catch (error) {
      output.closeWithError(error)
    }
    return { handle, isDone: output.isDone, attach: output.attach }
  }

  /** An early transcript (`preflight: true`): nothing goes out for it, unless it is refused. */
  const prepareTurn = (raw: GenerateInput, push: (event: CharpipeEvent) => void, close: () => void) => {
    try {
      if (closed) throw new BadRequestError('this charpipe instance is closed')
      preflights.prepare(raw)
      close()
    } catch (error) {
      const session = typeof raw?.session === 'string' && raw.session ? raw.session : 'default'
      createTurnOutput(randomUUID(), session, { push, close }).closeWithError(error)
    }
  }

  async function* generate(input: GenerateInput, generateOptions: GenerateOptions = {}) {
    const channel = createEventChannel<CharpipeEvent>()
    if (input?.preflight === true) {
      prepareTurn(input, channel.push, channel.close)
      yield* channel
      return
    }
    const { handle, isDone } = startTurn(input, channel.push, channel.close, generateOptions)
    const signal = generateOptions.signal
    const onAbort = () => abortTurn(handle, { kind: 'signal' })
    if (signal?.aborted) onAbort()
    signal?.addEventListener('abort', onAbort, { once: true })
    try {
      yield* channel
    } finally {
      signal?.removeEventListener('abort', onAbort)
      // Leaving the loop early interrupts the turn (STYLE.md §5).
      if (!isDone()) abortTurn(handle, { kind: 'consumer' })
    }
  }

  /**
   * `generate` without the iterator: each event is handed to `onEvent` as it happens. A server
   * relaying a thousand turns pays for every promise an iterator layer adds per event.
   */
  function run(
    input: GenerateInput,
    onEvent: (event: CharpipeEvent) => void,
    runOptions: GenerateOptions = {},
  ) {
    if (input?.preflight === true) {
      return new Promise<void>((resolve) => prepareTurn(input, onEvent, resolve))
    }
    return new Promise<void>((resolve, reject) => {
      const signal = runOptions.signal
      let handle: TurnHandle | undefined
      let listenerError: { error: unknown } | undefined
      let finished = false
      const onAbort = () => {
        if (handle) abortTurn(handle, { kind: 'signal' })
      }
      const deliver = (event: CharpipeEvent) => {
        if (listenerError) return
        try {
          onEvent(event)
        } catch (error) {
          // A listener that throws has stopped listening, as a consumer leaving its loop would.
          listenerError = { error }
          if (handle) abortTurn(handle, { kind: 'consumer' })
        }
      }
      const finish = () => {
        finished = true
        signal?.removeEventListener('abort', onAbort)
        if (listenerError) reject(listenerError.error)
        else resolve()
      }
      handle = startTurn(input, deliver, finish, runOptions).handle
      // A turn refused at once (bad input) has already finished here.
      if (finished) return
      if (signal?.aborted) onAbort()
      else signal?.addEventListener('abort', onAbort, { once: true })
    })
  }

  const interruptHandles = async (handles: TurnHandle[], options: InterruptOptions = {}) => {
    for (const handle of handles) {
      abortTurn(handle, handle.running ? { kind: 'interrupt', heard: options.heard } : { kind: 'interrupt' })
    }
    await Promise.all(handles.map((handle) => handle.ended))
  }

  // Each turn's place among its session's inputs across the cluster (`on_new_input: interrupt`).
  const inputOrder = new WeakMap<TurnHandle, Promise<number>>()
  function announceNewInput(handle: TurnHandle): void {
    const order = cluster!.coordinator.announceNewInput(laneKeyOf(handle.session, handle.character))
    // Unnumbered (Redis away): any later input stops it; the turn itself fails on the lock.
    inputOrder.set(
      handle,
      order.catch(() => 0),
    )
  }

  /** Whether a turn came before the new input another server numbered `order`. */
  async function isEarlierInput(handle: TurnHandle, order: number | undefined): Promise<boolean> {
    const own = inputOrder.get(handle)
    if (!own || order === undefined) return true
    return (await own) < order
  }

  function publishInterrupt(message: ClusterInterrupt): void {
    cluster?.coordinator.publishInterrupt(message).catch((error: unknown) => {
      logger.warn({ err: error, session: message.session }, 'the interrupt did not reach the other servers')
    })
  }

  // Another server asks: stop the turns of this session running here.
  await cluster?.coordinator.onInterrupt((message) => {
    // A new input names its lane (`laneKeyOf`); an interrupt names a session, or one character's lane.
    const lane = parseLaneKey(message.session)
    const character = lane.character ?? (message.kind === 'new_input' ? '' : undefined)
    const named = lanes
      .turnsOf(lane.session, character)
      .filter((handle) => message.turn === undefined || handle.turn === message.turn)
    if (message.kind === 'new_input') {
      // A new input elsewhere stops every earlier turn of the session here, as entering the lane does.
      return Promise.all(
        named.map(async (handle) => {
          if (!(await isEarlierInput(handle, message.order))) return 0
          abortTurn(handle, { kind: 'new_input' })
          return 1
        }),
      ).then((stopped) => stopped.reduce<number>((sum, each) => sum + each, 0))
    }
    // A prepared turn is not a reply yet: only a new input (above) stops it.
    const handles = selectInterrupted(
      named.filter((handle) => !handle.preflight),
      message.clearQueue,
    )
    for (const handle of handles) {
      abortTurn(handle, handle.running ? { kind: 'interrupt', heard: message.heard } : { kind: 'interrupt' })
    }
    return handles.length
  })

  const charpipe: Charpipe = {
    generate: (input, generateOptions) => generate(input, generateOptions),
    run,
    on: (type, listener) => bus.on(type, listener),
    off: (type, listener) => bus.off(type, listener),
    interrupt(session, interruptOptions = {}) {
      const chosen = interruptOptions.character
      // A character named: its lane only ('' is the default's); none: every character's in the session.
      const known = chosen === undefined || findCharacter(current.config, chosen) !== undefined
      const character =
        chosen === undefined || !known ? undefined : isDefaultCharacter(current.config, chosen) ? '' : chosen
      // A prepared turn (preflight) is not a reply yet: there is nothing of it to stop.
      const turns = known ? lanes.turnsOf(session, character).filter((handle) => !handle.preflight) : []
      if (cluster) {
        const { heard, clearQueue } = interruptOptions
        publishInterrupt({
          session: character ? laneKeyOf(session, character) : session,
          kind: 'interrupt',
          ...(heard === undefined ? {} : { heard }),
          ...(clearQueue ? { clearQueue } : {}),
        })
        return interruptHandles(selectInterrupted(turns, clearQueue), interruptOptions)
      }
      // A lane's turns are in arrival order: the first of each is the running one (or about to run).
      return interruptHandles(interruptOptions.clearQueue ? turns : firstOfEachLane(turns), interruptOptions)
    },
    reload(config) {
      const next = reloading.then(async () => {
        if (closed) throw new BadRequestError('this charpipe instance is closed')
        const parsed = parseConfig(config, { source: 'reload', logger, checks: [checkPipelineConfig] }).config
        const previous = current
        current = await createEngineRuntime({ ...injected, config: parsed, parts, logger, previous })
        await configureMcp(parsed.tools.mcp_servers)
        if (previous.activeTurns === 0) await releaseRuntimeParts(previous, current, owned, logger)
        else retired.add(previous)
        logger.info('config reloaded; applies from the next turn')
      })
      reloading = next.catch(() => {})
      return next
    },
    observe(input) {
      if (closed) throw new BadRequestError('this charpipe instance is closed')
      const line = validateObserveInput(input, { maxInputChars: current.config.conversation.max_input_chars })
      const id = randomUUID()
      const group = current.config.conversation.group
      observedLines.add(
        line.session,
        { id, speaker: line.speaker, text: line.text, ...(line.images ? { images: line.images } : {}) },
        {
          maxChars: group.observed_max_chars,
          maxLines: group.observed_max_lines,
          maxSessions: group.observed_max_sessions,
        },
      )
      return { id }
    },
    async preview(input) {
      const validated = validateGenerateInput(input, {
        maxInputChars: current.config.conversation.max_input_chars,
      })
      const turnInput = resolveCharacter(
        renderGroupInput(validated, observedLines.peek(validated.session), current.config.conversation.group),
      )
      const runtime = characterRuntime(current, turnInput.character)
      return pipeline.preview({
        input: turnInput,
        config: runtime.config,
        capabilities: runtime.capabilities,
        services: createPipelineServices(runtime, logger),
      })
    },
    async history(session, historyOptions = {}) {
      const { character, ...listOptions } = historyOptions
      return current.historyStore.listMessages(scopeOf(session, character), listOptions)
    },
    async clearSession(session, clearOptions = {}) {
      // Without a character, the session is deleted with every character it was held with.
      const characters =
        clearOptions.character === undefined ? listCharacterIds(current.config) : [clearOptions.character]
      for (const character of characters) {
        const scope = scopeOf(session, character)
        await current.historyStore.clearSession(scope)
        forgetOpenedSession(opened, scope)
      }
    },
    async open(input = {}) {
      if (closed) throw new BadRequestError('this charpipe instance is closed')
      const session = validateSessionField(input.session)
      const runtime = characterRuntime(current, checkCharacterField(input.character))
      const greeting = await openSession({ runtime, session, opened, random: options.random })
      return greeting ? { greeting } : {}
    },
    characters: () => listCharacterIds(current.config),
    activeSessions: () =>
      lanes.sessions().filter((session) => lanes.turnsOf(session).some((handle) => !handle.preflight)),
    preflightStats: () => preflightSlots.stats(),
    listProcessors: () => pipeline.listProcessors(current.config),
    listTools: () => ({
      tools: registry.list().map((tool) => {
        const server = mcp?.serverOf(tool.name)
        return { name: tool.name, description: tool.description ?? '', ...(server ? { server } : {}) }
      }),
      servers: mcp?.servers() ?? [],
    }),
    toolCallStats: () => mcp?.callStats() ?? [],
    get config() {
      return current.config
    },
    get memory() {
      return current.memoryStore
    },
    cluster,
    async close() {
      if (closed) return
      closed = true
      await reloading
      const handles = lanes.all()
      for (const handle of handles) abortTurn(handle, { kind: 'close' })
      await Promise.all(handles.map((handle) => handle.ended))
      // Fact extractions of finished turns complete (each within memory.extract_timeout_ms).
      await background.drain()
      for (const runtime of retired) await releaseRuntimeParts(runtime, current, owned, logger)
      retired.clear()
      await releaseRuntimeParts(current, undefined, owned, logger)
      await mcp?.close()
      if (ownsCluster) await cluster?.close()
    },
  }
  return charpipe
}
