/**
 * The life of one turn after `generate` is called: wait for the session's lane (and, in a cluster,
 * its lock across servers), run, store, close with exactly one `llm_done` — whatever happened. Interruptions by a new input are announced with
 * `llm_error` `interrupted_by_new_input`; upstream failures with their own code.
 */
import type { TurnCoordinator, TurnLease } from '../cluster/turn-coordinator.js'
import type { ContextPipeline, TurnInput } from '../context/types.js'
import type { StoredMessage } from '../memory/types.js'
import { CharpipeError, StoreUnavailableError } from '../shared/errors.js'
import { createChildLogger, type Logger } from '../shared/logger.js'
import type { ChatMessage } from '../shared/messages.js'
import type { ToolRegistry } from '../tools/tool-registry.js'
import { raceAbort } from './abortable.js'
import type { BackgroundWork } from './background-work.js'
import { createModelFactExtractor } from './create-model-fact-extractor.js'
import type { EngineParts } from './engine-parts.js'
import type { EngineRuntime } from './engine-runtime.js'
import { type PersistTurnOptions, rememberCompletedTurn, storeTurn } from './persist-turn.js'
import { awaitAdoption, countModelCalls } from './preflight/await-adoption.js'
import type { PreflightGate } from './preflight/create-preflight-gate.js'
import { readInterruptReason, runTurn, type TurnOutcome } from './run-turn.js'
import { laneKeyOf, type TurnHandle } from './session-lanes.js'
import type { EmitTurnEvent } from './turn-reply.js'
import { createTurnTimer, type TurnTimer } from './turn-timing.js'

export interface ExecuteTurnOptions {
  handle: TurnHandle
  input: TurnInput
  /** Resolves when the session's previous turn is finished. */
  previous: Promise<void>
  parts: EngineParts
  pipeline: ContextPipeline
  registry: ToolRegistry
  logger: Logger
  emit: EmitTurnEvent
  /** Takes the current runtime for this turn (counted until `releaseRuntime`). */
  acquireRuntime(): EngineRuntime
  releaseRuntime(runtime: EngineRuntime): void
  /** Where fact extraction runs, after `llm_done` and off the session's lane. */
  background: BackgroundWork
  /** The session's turn lock across servers (`cluster.enabled`); none orders turns in this process only. */
  coordinator?: TurnCoordinator
  onModelCall?: (messages: readonly ChatMessage[]) => void
  /** Stores the character's greeting when the session is new (see `openSession`); returns it then. */
  openSession?: (runtime: EngineRuntime) => Promise<StoredMessage | undefined>
  /**
   * Set for a turn prepared from an early transcript: until a final input adopts it, its events are
   * held, its tools wait and nothing is stored; dropped (its signal aborts), it ends without a trace.
   */
  preflight?: PreflightGate
}

/**
 * A new session's greeting goes out before the reply; a store that fails here costs the greeting
 * only (the turn itself then meets the same store, and says so).
 */
async function sendGreeting(options: ExecuteTurnOptions, runtime: EngineRuntime): Promise<void> {
  if (!options.openSession || options.input.stateless) return
  try {
    const greeting = await options.openSession(runtime)
    if (!greeting) return
    options.emit({
      type: 'greeting',
      text: greeting.content,
      emotion: greeting.emotion ?? runtime.config.character.default_emotion,
    })
  } catch (error) {
    options.logger.warn({ err: error, session: options.input.session }, 'the greeting was not stored')
  }
}

/**
 * With `memory.extract: true` the model is asked for facts after the turn has closed, in the
 * background, holding the runtime until then; returns whether it took the runtime over.
 */
function scheduleFactExtraction(options: ExecuteTurnOptions, persist: PersistTurnOptions): boolean {
  const { runtime } = persist
  if (!runtime.config.memory.extract || !runtime.memoryStore) return false
  const extractor = createModelFactExtractor({
    provider: runtime.provider,
    timeoutMs: runtime.config.memory.extract_timeout_ms,
    logger: createChildLogger(options.logger, 'memory'),
  })
  options.background.schedule(`memory:${persist.input.session}`, async () => {
    try {
      await rememberCompletedTurn(persist, extractor)
    } finally {
      options.releaseRuntime(runtime)
    }
  })
  return true
}

function emitClosing(options: ExecuteTurnOptions, outcome: TurnOutcome): void {
  if (outcome.reason?.kind === 'new_input') {
    options.emit({
      type: 'llm_error',
      code: 'interrupted_by_new_input',
      message: 'a new input interrupted this reply',
    })
  }
  if (outcome.error) {
    const { code, message, status } = outcome.error
    options.emit({ type: 'llm_error', code, message, ...(status === undefined ? {} : { status }) })
  }
}

function emitDone(
  options: ExecuteTurnOptions,
  runtime: EngineRuntime,
  outcome: TurnOutcome,
  timer: TurnTimer,
): void {
  options.emit({
    type: 'llm_done',
    text: options.parts.applyDisplayRegexRules(outcome.displayText, runtime.config),
    emotion: outcome.emotion,
    interrupted: outcome.interrupted,
    timing: timer.report(),
    ...(outcome.usage ? { usage: outcome.usage } : {}),
  })
}

/**
 * Stores the turn, unless reading the history already found the store down (one deadline per turn
 * is enough: the turn was not run, and the user hears about it now, not a second deadline later).
 * An interrupt while storing closes the turn at once; the write goes on in the background, bounded
 * by `storage.timeout_ms`, and logs its own failure.
 */
async function storeUnlessHistoryIsDown(
  options: ExecuteTurnOptions,
  persist: PersistTurnOptions,
  lease: TurnLease | undefined,
  onStoring: (storing: Promise<unknown>) => void,
): Promise<CharpipeError | undefined> {
  const failure = persist.outcome.error
  if (failure?.code === 'store_unavailable' && (failure as StoreUnavailableError).store === 'history') {
    options.logger.warn(
      { session: persist.input.session, turn: persist.turn, characters: persist.input.text.length },
      'the turn was not stored: the history store is unavailable',
    )
    return undefined
  }
  const storing = lease ? storeIfLeaseHeld(persist, lease) : storeTurn(persist)
  onStoring(storing)
  try {
    return await raceAbort(storing, options.handle.controller.signal)
  } catch {
    return undefined
  }
}

/**
 * In a cluster the turn is stored only while its lock is still its own (the check extends the lock
 * over the write): once the lock expired and another server took the session, this turn is late and
 * storing it would put it after, or beside, the turns that followed.
 */
async function storeIfLeaseHeld(
  persist: PersistTurnOptions,
  lease: TurnLease,
): Promise<CharpipeError | undefined> {
  let held: boolean
  try {
    held = await lease.confirm()
  } catch (error) {
    return CharpipeError.isInstance(error) ? error : new CharpipeError('internal', String(error))
  }
  if (held) return storeTurn({ ...persist, fence: lease.fence })
  persist.logger.warn(
    { session: persist.input.session, turn: persist.turn, fence: lease.fence },
    'the turn was not stored: its lock moved to another server',
  )
  return new StoreUnavailableError(
    'the turn was not stored: it outlived its lock (cluster.lease_ms) and the session moved on',
    { store: 'cluster' },
  )
}

/** Closes a turn that could not get its session's lock (Redis away, or the wait was too long). */
function closeWithoutLock(
  options: ExecuteTurnOptions,
  runtime: EngineRuntime,
  error: unknown,
  timer: TurnTimer,
) {
  const failure = CharpipeError.isInstance(error)
    ? error
    : new StoreUnavailableError(`the turn lock failed: ${String(error)}`, { store: 'cluster' })
  options.logger.warn(
    { session: options.input.session, turn: options.handle.turn, err: failure },
    'turn not run',
  )
  const outcome: TurnOutcome = {
    displayText: '',
    emotion: runtime.config.character.default_emotion,
    sentences: [],
    interrupted: false,
    error: failure,
  }
  emitClosing(options, outcome)
  emitDone(options, runtime, outcome, timer)
}

export async function executeTurn(untimed: ExecuteTurnOptions): Promise<void> {
  const gate = untimed.preflight
  let timer = createTurnTimer()
  const held: Parameters<EmitTurnEvent>[0][] = []
  const options: ExecuteTurnOptions = {
    ...untimed,
    emit: (event) => {
      if (gate && !gate.adopted) {
        held.push(event)
        return
      }
      timer.observe(event)
      untimed.emit(event)
    },
  }
  const { handle } = options
  // An adopted preflight is stored with the final input's words, and timed from it.
  let input = options.input
  gate?.onAdopt((finalInput, adoptedAt) => {
    input = finalInput
    timer = createTurnTimer(adoptedAt, { preflightSavedMs: adoptedAt - gate.startedAt })
    for (const event of held.splice(0)) {
      timer.observe(event)
      untimed.emit(event)
    }
  })
  const signal = handle.controller.signal
  const startedAt = Date.now()
  let runtime: EngineRuntime | undefined
  // Set when background work took the runtime over and releases it itself.
  let handedOver = false
  let lease: TurnLease | undefined
  // The lock is kept until the turn's write has ended, even when an interrupt closed the turn first.
  let storing: Promise<unknown> = Promise.resolve()
  const persistOptions = (on: EngineRuntime, outcome: TurnOutcome): PersistTurnOptions => ({
    runtime: on,
    parts: options.parts,
    input,
    turn: handle.turn,
    startedAt,
    outcome,
    logger: options.logger,
  })
  try {
    try {
      await raceAbort(options.previous, signal)
      lease = await options.coordinator?.acquire(laneKeyOf(input.session, input.character), signal)
    } catch (error) {
      // A preparation that never started leaves nothing behind; a lock failure starts the final over.
      if (gate && !gate.adopted) {
        gate.failed = !signal.aborted
        return
      }
      if (!signal.aborted) {
        runtime = options.acquireRuntime()
        closeWithoutLock(options, runtime, error, timer)
        return
      }
      // Aborted before it could start: close the stream now, store after the turn before it.
      runtime = options.acquireRuntime()
      const outcome: TurnOutcome = {
        displayText: '',
        emotion: runtime.config.character.default_emotion,
        sentences: [],
        interrupted: true,
        reason: readInterruptReason(signal),
      }
      emitClosing(options, outcome)
      emitDone(options, runtime, outcome, timer)
      // Cancelled by an interrupt that cleared the queue: the model never saw it, and a user line
      // without a reply would only confuse the next turns. Superseded by a newer input, or cut by
      // a shutdown, it is stored as before: the user did say it.
      if (outcome.reason?.kind === 'interrupt') return
      await options.previous
      await storeTurn(persistOptions(runtime, outcome))
      return
    }
    handle.running = true
    runtime = options.acquireRuntime()
    await sendGreeting(options, runtime)
    const outcome = await runTurn({
      runtime,
      pipeline: options.pipeline,
      parts: options.parts,
      registry: options.registry,
      input,
      turn: handle.turn,
      timestamp: startedAt,
      signal,
      emit: options.emit,
      logger: options.logger,
      ...(options.onModelCall || gate ? { onModelCall: countModelCalls(gate, options.onModelCall) } : {}),
      ...(gate ? { beforeTools: () => gate.whenAdopted } : {}),
    })
    if (gate && !(await awaitAdoption(gate, outcome, signal))) return
    emitClosing(options, outcome)
    const persist = persistOptions(runtime, outcome)
    const storeError = await storeUnlessHistoryIsDown(options, persist, lease, (write) => {
      storing = write
    })
    if (storeError) options.emit({ type: 'llm_error', code: storeError.code, message: storeError.message })
    emitDone(options, runtime, outcome, timer)
    handedOver = scheduleFactExtraction(options, persist)
    if (!handedOver) await rememberCompletedTurn(persist)
  } catch (error) {
    // Only a bug gets here; the caller still closes the stream with `llm_done`.
    options.logger.error({ err: error, turn: handle.turn }, 'the turn failed unexpectedly')
    options.emit({ type: 'llm_error', code: 'internal', message: 'the turn failed unexpectedly' })
  } finally {
    if (runtime && !handedOver) options.releaseRuntime(runtime)
    const held = lease
    const finishing = storing.then(
      () => held?.release(),
      () => held?.release(),
    )
    // Released before the lane lets the next local turn in. An interrupt does not wait for the
    // write, but the engine's close does (as background work): the stores, and the cluster's Redis,
    // close only after the cut turn is stored and its lock released.
    if (!signal.aborted) await finishing
    else options.background.schedule(`turn:${handle.turn}`, () => finishing)
  }
}
