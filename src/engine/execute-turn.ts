/**
 * The life of one turn after `generate` is called: wait for the session's lane (and, in a cluster,
 * its lock across servers), run, store, close with exactly one `llm_done` — whatever happened. Interruptions by a new input are announced with
 * `llm_error` `interrupted_by_new_input`; upstream failures with their own code.
 */
import type { TurnCoordinator, TurnLease } from '../cluster/turn-coordinator.js'
import type { ContextPipeline, TurnInput } from '../context/types.js'
import type { StoredMessage } from '../memory/types.js'
import { CharpipeError, StoreUnavailableError } from '../shared/errors.js'
import type { TurnNotStoredEvent } from '../shared/events.js'
import { createChildLogger, type Logger } from '../shared/logger.js'
import type { ChatMessage } from '../shared/messages.js'
import type { ToolRegistry } from '../tools/tool-registry.js'
import { raceAbort } from './abortable.js'
import type { BackgroundWork } from './background-work.js'
import { createTurnCloser, reportTurnNotStored, type TurnCloser } from './close-turn.js'
import type { TurnWriteResult } from './confirm-turn-write.js'
import { createModelFactExtractor } from './create-model-fact-extractor.js'
import type { EngineParts } from './engine-parts.js'
import type { EngineRuntime } from './engine-runtime.js'
import {
  type PersistTurnOptions,
  rememberCompletedTurn,
  storeAbortedBeforeLock,
  storeIfLeaseHeld,
  storeTurn,
} from './persist-turn.js'
import { awaitAdoption, countModelCalls } from './preflight/await-adoption.js'
import type { PreflightGate } from './preflight/create-preflight-gate.js'
import { replayStoredTurn } from './replay-stored-turn.js'
import { readInterruptReason, runTurn, type TurnOutcome } from './run-turn.js'
import { laneKeyOf, type TurnHandle } from './session-lanes.js'
import type { EmitTurnEvent } from './turn-reply.js'
import { createTurnTimer } from './turn-timing.js'

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
  /** Where a write that ended after `llm_done` and did not store the turn is reported. */
  reportNotStored?: (event: TurnNotStoredEvent) => void
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

/**
 * Stores the turn, unless reading the history already found the store down (one deadline per turn
 * is enough: the turn was not run, and the user hears about it now, not a second deadline later).
 * An interrupt while storing closes the turn at once; the write goes on in the background, and
 * whatever became of it is reported after `llm_done` (see `reportTurnNotStored`).
 */
async function storeUnlessHistoryIsDown(
  options: ExecuteTurnOptions,
  persist: PersistTurnOptions,
  lease: TurnLease | undefined,
  onStoring: (storing: Promise<TurnWriteResult>) => void,
): Promise<TurnWriteResult | undefined> {
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

/** A turn that ends without running: its one error, then `llm_done`. */
function closeWithoutRunning(
  closer: TurnCloser,
  runtime: EngineRuntime,
  error: CharpipeError | undefined,
  reason?: TurnOutcome['reason'],
) {
  const outcome: TurnOutcome = {
    displayText: '',
    emotion: runtime.config.character.default_emotion,
    sentences: [],
    interrupted: reason !== undefined,
    ...(reason ? { reason } : {}),
    ...(error ? { error } : {}),
  }
  closer.close(outcome, '')
  return outcome
}

/** Closes a turn that could not get its session's lock (Redis away, or the wait was too long). */
function closeWithoutLock(
  options: ExecuteTurnOptions,
  closer: TurnCloser,
  runtime: EngineRuntime,
  error: unknown,
) {
  const failure = CharpipeError.isInstance(error)
    ? error
    : new StoreUnavailableError(`the turn lock failed: ${String(error)}`, { store: 'cluster' })
  options.logger.warn(
    { session: options.input.session, turn: options.handle.turn, err: failure },
    'turn not run',
  )
  closeWithoutRunning(closer, runtime, failure)
}

export async function executeTurn(untimed: ExecuteTurnOptions): Promise<void> {
  const gate = untimed.preflight
  let timer = createTurnTimer()
  const held: Parameters<EmitTurnEvent>[0][] = []
  // Every event of the turn goes through the closer: one llm_error at most, one llm_done.
  const closer = createTurnCloser({
    emit: (event) => {
      timer.observe(event)
      untimed.emit(event)
    },
    readTimer: () => timer,
  })
  const options: ExecuteTurnOptions = {
    ...untimed,
    emit: (event) => {
      if (gate && !gate.adopted) {
        held.push(event)
        return
      }
      closer.deliver(event)
    },
  }
  const { handle } = options
  // An adopted preflight is stored with the final input's words, and timed from it.
  let input = options.input
  gate?.onAdopt((finalInput, adoptedAt) => {
    input = finalInput
    timer = createTurnTimer(adoptedAt, { preflightSavedMs: adoptedAt - gate.startedAt })
    for (const event of held.splice(0)) closer.deliver(event)
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
  // A write that ends after llm_done is reported on its own, and always logged.
  const reportLate = (write: Promise<TurnWriteResult>) =>
    write.then((result) =>
      reportTurnNotStored({
        write: result,
        session: input.session,
        turn: handle.turn,
        inputId: input.id,
        logger: options.logger,
        report: options.reportNotStored ?? (() => {}),
      }),
    )
  try {
    try {
      await raceAbort(options.previous, signal)
      lease = await options.coordinator?.acquire(
        laneKeyOf(input.session, input.character),
        signal,
        handle.order,
      )
    } catch (error) {
      // A preparation that never started leaves nothing behind; a lock failure starts the final over.
      if (gate && !gate.adopted) {
        gate.failed = !signal.aborted
        return
      }
      runtime = options.acquireRuntime()
      if (!signal.aborted) {
        closeWithoutLock(options, closer, runtime, error)
        return
      }
      // Aborted before it could start: close the stream now, store after the turn before it.
      const outcome = closeWithoutRunning(closer, runtime, undefined, readInterruptReason(signal))
      // Stored after the turn before it, in its input's place (see `storeAbortedBeforeLock`).
      await reportLate(
        storeAbortedBeforeLock({
          persist: persistOptions(runtime, outcome),
          previous: options.previous,
          coordinator: options.coordinator,
          lane: laneKeyOf(input.session, input.character),
          order: handle.order,
        }),
      )
      return
    }
    handle.running = true
    runtime = options.acquireRuntime()
    // A resend of an input whose turn is stored already is answered from the store.
    if (
      input.id !== undefined &&
      !input.stateless &&
      (await replayStoredTurn({ runtime, input, turn: handle.turn, closer }))
    )
      return
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
    const persist = persistOptions(runtime, outcome)
    let write: Promise<TurnWriteResult> | undefined
    const written = await storeUnlessHistoryIsDown(options, persist, lease, (pending) => {
      storing = pending
      write = pending
    })
    closer.close(outcome, options.parts.applyDisplayRegexRules(outcome.displayText, runtime.config), written)
    // Interrupted while storing: the write ends after llm_done, and says how it ended then.
    if (!written && write) void reportLate(write)
    handedOver = scheduleFactExtraction(options, persist)
    if (!handedOver) await rememberCompletedTurn(persist)
  } catch (error) {
    // Only a bug gets here: one internal error, then llm_done with what was sent.
    options.logger.error({ err: error, turn: handle.turn }, 'the turn failed unexpectedly')
    closer.closeUnexpectedly(runtime?.config.character.default_emotion ?? '')
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
