/**
 * The turn runner: one turn's whole life, top to bottom, in the order it happens.
 *
 *   admission      enter the session's lane (session-lanes.ts: `interrupt` stops the turns in it,
 *                  `queue` waits behind them); a resend of a stored input is answered from the
 *                  store (replay-stored-turn.ts) before, in a cluster, the session's lock is taken
 *   runtime        the runtime current now, held to the end (a reload meanwhile waits for this turn)
 *   replay         under the lock, once more: another server may have stored it meanwhile
 *   greeting       a new session's greeting goes out first (open-session.ts)
 *   context        the context pipeline builds the messages (build-turn-messages.ts)
 *   model steps    the model, and the tools it calls, until it answers in words (run-model-steps.ts)
 *   reply stages   every chunk through parser → turn events → emit (reply-stages.ts)
 *   store          the user message and the reply (write-turn.ts → persist-turn.ts)
 *   close          the single close path (close-turn.ts): one `llm_error` at most, one `llm_done`;
 *                  a complete reply closes after its write, a cut one before it
 *   after          the lock and the lane let the next turn in; long-term memory is written in the
 *                  background (never on the lane)
 *
 * Interruption is the handle's AbortSignal, whose reason says why (turn-outcome.ts); every await
 * races it. The runner never throws: whatever happens, the turn closes once.
 */
import type { TurnLease } from '../../cluster/turn-coordinator.js'
import type { TurnInput } from '../../context/types.js'
import { CharpipeError, StoreUnavailableError } from '../../shared/errors.js'
import { createChildLogger } from '../../shared/logger.js'
import type { ChatMessage } from '../../shared/messages.js'
import { nextPoll } from '../../shared/next-turn-of-event-loop.js'
import { raceAbort } from '../abortable.js'
import { reportTurnNotStored, type TurnCloser } from '../close-turn.js'
import type { TurnWriteResult } from '../confirm-turn-write.js'
import { createModelFactExtractor } from '../create-model-fact-extractor.js'
import type { EngineContext } from '../engine-context.js'
import { acquireTurnRuntime, releaseTurnRuntime } from '../engine-lifecycle.js'
import type { EngineRuntime } from '../engine-runtime.js'
import { forgetUnkeptMemories } from '../forget-unkept-memories.js'
import { laneKeyOf } from '../lane-key.js'
import { openSession } from '../open-session.js'
import { type PersistTurnOptions, rememberCompletedTurn } from '../persist-turn.js'
import { replayStoredTurn } from '../replay-stored-turn.js'
import type { TurnHandle } from '../session-lanes.js'
import { awaitGrant } from '../turn-authorization.js'
import type { EmitTurnEvent } from '../turn-event.js'
import { readInterruptReason, type TurnOutcome, toCharpipeError } from '../turn-outcome.js'
import { createTurnTimer, type TurnTimer } from '../turn-timing.js'
import type { GenerateOptions } from '../types.js'
import { addSilenceNote, isSilenceAllowed } from './allow-silence.js'
import { buildTurnMessages, offerTools } from './build-turn-messages.js'
import { applyDisplayRules, createReplyStages } from './reply-stages.js'
import { chooseToolImageHandling, runModelSteps } from './run-model-steps.js'
import { shareWithOthersPresent } from './share-with-others-present.js'
import { createTurnEventPath } from './turn-event-path.js'
import type { TurnOutput } from './turn-output.js'
import { isLateInputRefusal, storeAbortedBeforeLock, writeTurn } from './write-turn.js'

export interface RunTurnOptions extends Pick<GenerateOptions, 'onModelCall' | 'onTurnNotStored' | 'source'> {
  engine: EngineContext
  handle: TurnHandle
  input: TurnInput
  /** Where the turn's events go (turn-output.ts). */
  output: TurnOutput
  /** How the turn enters its lane: `interrupt` stops the turns in it, `queue` waits behind them. */
  mode: 'interrupt' | 'queue'
}

/**
 * Characters from which a reply's end is spread over turns of the event loop (`liveTurn`). At 16,000
 * characters one step could take 5–10 ms (the history row's insert, the heard text of a cut reply
 * found among its sentences, code run for the first time), and a cut reply's end ran in the same
 * task as the interrupt that cut it: together 20–27 ms. From here on a step is a millisecond or two.
 */
const longReplyCharacters = 8_192

/** What one turn holds while it runs; nothing of it outlives the turn. */
interface TurnState {
  readonly timer: TurnTimer
  /** When the turn began (ms since the epoch): the stored user message's time. */
  readonly startedAt: number
  readonly signal: AbortSignal
  /** The close stage of the event path (turn-event-path.ts): one `llm_error` at most, one `llm_done`. */
  readonly closer: TurnCloser
  /** Where the turn's events enter its event path (turn-event-path.ts). */
  readonly emit: EmitTurnEvent
  runtime?: EngineRuntime
  /** Set when background work took the runtime over and releases it itself. */
  handedOver: boolean
  lease?: TurnLease
  /** The turn's write: the lock is kept until it has ended, even when an interrupt closed the turn first. */
  storing: Promise<unknown>
  /** Lets the engine's background slices run again: at the first chunk, or when the turn ends. */
  readonly releaseSlices: () => void
}

/** Puts a turn in its session's lane and runs it there (`handle.ended` tells when it is over). */
export function runTurn(options: RunTurnOptions): void {
  const { engine, handle, input, output } = options
  handle.character = input.character
  // A resend of an input whose turn is still here waits for it (and then answers from the store)
  // instead of interrupting it.
  const resend = engine.lanes
    .turnsOf(handle.session, input.character ?? '')
    .some((other) => other.turn === handle.turn)
  const previous = engine.lanes.enter(handle, resend ? 'queue' : options.mode)
  handle.ended = liveTurn(options, previous).finally(() => {
    if (!output.isDone()) output.closeWithError(new Error('the turn ended without a result'))
    engine.lanes.leave(handle)
  })
}

async function liveTurn(options: RunTurnOptions, previous: Promise<void>): Promise<void> {
  const { engine, handle } = options
  const { authorization } = handle
  const state = createTurnState(options)
  const { signal, closer } = state
  try {
    try {
      await raceAbort(previous, signal)
      // A resend of an input the session has is answered from the store before any lock: the
      // lock (Redis away, another server's lease left behind) must not stand between the client
      // and a turn already stored.
      if (await replayIfStored(options, state)) return
      state.lease = await engine.cluster?.coordinator.acquire(
        laneKeyOf(options.input.session, options.input.character),
        signal,
        handle.order,
        handle.turn,
      )
    } catch (error) {
      // Not granted yet, it leaves no trace; a lock failure marks it failed (its input starts over).
      if (!authorization.granted) {
        authorization.withheld.failed = !signal.aborted
        return
      }
      await closeUnadmitted(options, state, previous, error)
      return
    }
    handle.running = true
    const runtime = acquireRuntime(options, state)
    // Once more under the lock: an earlier attempt on another server may have stored it meanwhile.
    if (state.lease && (await replayIfStored(options, state, runtime))) return
    await sendGreeting(options, state, runtime)
    const outcome = await runReply(options, state, runtime)
    // Nothing is stored, and nothing closes, before the turn is granted.
    if (!(await awaitGrant(authorization, outcome, signal))) return
    // The end of a long reply costs milliseconds at each step, as every step handles the whole text
    // again (its last sentences, the history row, llm_done): each gets a turn of the loop of its own,
    // after its poll, so their stalls do not add up. The stores answer at once (SQLite), so nothing
    // else splits them.
    const spreadEnd = outcome.displayText.length >= longReplyCharacters
    // The reply's last frames leave before the write: a transport that holds its writes until the
    // loop's check phase (the server's sockets) would otherwise send them only after the history
    // row, and a reply that came in one read, its first chunk too. A cut reply closes at once.
    if (spreadEnd) await nextPoll()
    else if (!outcome.interrupted) await engine.passCheckPhase?.()
    const persist = persistOptionsOf(options, state, runtime, outcome)
    // A reply that was complete is closed only once its write has ended, interrupted meanwhile or
    // not: its llm_done (with its llm_error, if any) is the write's outcome. Only a reply cut short
    // closes at once and reports its write later (turn_not_stored).
    const { written, pending } = await writeTurn({
      persist,
      lease: state.lease,
      signal: outcome.interrupted ? signal : undefined,
      logger: engine.logger,
    })
    state.storing = pending ?? state.storing
    if (spreadEnd) await nextPoll()
    closer.close(outcome, applyDisplayRules(engine.parts, outcome.displayText, runtime.config), written)
    // Interrupted while storing: the write ends after llm_done, and says how it ended then.
    if (!written && pending) void reportLate(options, pending)
    // Long-term memory keeps only what the history keeps: a turn not stored (or not known to be)
    // is not remembered. It is written in the background, never on the session's lane.
    state.handedOver = scheduleMemory(options, persist, written ?? pending)
  } catch (error) {
    // Only a bug gets here: one internal error, then llm_done with what was sent.
    engine.logger.error({ err: error, turn: handle.turn }, 'the turn failed unexpectedly')
    closer.closeUnexpectedly(state.runtime?.config.character.default_emotion ?? '')
  } finally {
    state.releaseSlices()
    // The runtime goes back, then the lock once the write has ended; then the lane lets the next turn in.
    if (state.runtime && !state.handedOver) releaseTurnRuntime(engine, state.runtime)
    const lease = state.lease
    const finishing = state.storing.then(
      () => lease?.release(),
      () => lease?.release(),
    )
    // Released before the lane lets the next local turn in. An interrupt does not wait for the
    // write, but the engine's close does (as background work): the stores, and the cluster's Redis,
    // close only after the cut turn is stored and its lock released.
    if (!signal.aborted) await finishing
    else engine.background.schedule(`turn:${handle.turn}`, () => finishing)
  }
}

function createTurnState(options: RunTurnOptions): TurnState {
  const { engine, handle, input, output } = options
  const { authorization } = handle
  // Timed from the grant: a turn started ahead of its input reports the head start it had.
  const timer = createTurnTimer({
    now: engine.clock.now,
    readStart: () => authorization.grantedAt,
    readHeadStartMs: () => authorization.heldMs,
  })
  const identity = { session: input.session, turn: handle.turn, trigger: output.trigger }
  const path = createTurnEventPath({
    authorization,
    timer,
    share: shareWithOthersPresent({ engine, input, trigger: output.trigger }),
    observers: engine.observers.flatMap((observer) => observer(identity) ?? []),
    output,
  })
  // Until its first chunk a turn goes before the background's slices (the memory write of the turn
  // before): they would stand between the input and the reply.
  const releaseSlices = engine.slices.hold()
  return {
    timer,
    startedAt: Date.now(),
    signal: handle.controller.signal,
    closer: path.closer,
    emit: (event) => {
      if (event.type === 'llm_chunk') releaseSlices()
      path.emit(event)
    },
    handedOver: false,
    storing: Promise.resolve(),
    releaseSlices,
  }
}

/** The input the turn answers: the one that granted it (a turn started ahead of it), or its own. */
function answeredInput(options: RunTurnOptions): TurnInput {
  return options.handle.authorization.input ?? options.input
}

/** Context → model steps with tools → reply stages. Never throws: the outcome says how it ended. */
async function runReply(
  options: RunTurnOptions,
  state: TurnState,
  runtime: EngineRuntime,
): Promise<TurnOutcome> {
  const { engine, handle } = options
  const { authorization } = handle
  const { signal } = state
  const silence = isSilenceAllowed({
    config: runtime.config,
    trigger: options.output.trigger,
    source: options.source,
  })
  const stages = createReplyStages({
    parts: engine.parts,
    parserOptions: silence ? { ...runtime.parserOptions, silence } : runtime.parserOptions,
    defaultEmotion: runtime.config.character.default_emotion,
    emit: state.emit,
  })
  let refusedAttachments: ReadonlySet<string> | undefined
  let memory: TurnOutcome['memory']
  const outcome = (extra: Partial<TurnOutcome>): TurnOutcome => ({
    displayText: stages.displayText,
    emotion: stages.emotion,
    sentences: stages.sentences,
    interrupted: false,
    ...(refusedAttachments?.size ? { refusedAttachments } : {}),
    ...(memory ? { memory } : {}),
    ...(stages.usage ? { usage: stages.usage } : {}),
    ...(stages.answer ? { answer: stages.answer } : {}),
    ...(stages.silent ? { silent: true as const } : {}),
    ...(stages.thought === undefined ? {} : { thought: stages.thought }),
    ...extra,
  })
  try {
    // Many inputs read in one turn of the loop start over several (an interrupt is read between).
    await engine.turnStarts.enter(signal)
    const context = await buildTurnMessages({
      runtime,
      pipeline: engine.pipeline,
      // Granted already (a turn started ahead of its input, granted while it queued): its input's words.
      input: answeredInput(options),
      timestamp: state.startedAt,
      signal,
      logger: engine.logger,
      clock: engine.clock,
    })
    refusedAttachments = context.refusedAttachments
    memory = context.memory
    // Tools of sources still connecting (MCP servers) are waited for, each within its own bound.
    await raceAbort(engine.registry.ready(signal), signal)
    const clientTools = options.input.clientTools ?? []
    // This turn's tool rounds so far (the client ran its tools): after the input, as our own rounds go.
    const rounds = (options.input.clientPrompt?.toolRounds ?? []).map(
      (message): ChatMessage => ({ ...message, source: 'tool' }),
    )
    const messages = silence ? addSilenceNote(context.messages, runtime.config) : context.messages
    const tools = offerTools(
      [...messages, ...rounds],
      engine.registry,
      runtime,
      clientTools,
      options.input.toolChoice,
    )
    // What a turn spends before its grant is counted (wasted if it is never granted).
    const onModelCall = (messages: readonly ChatMessage[]) => {
      if (!authorization.granted) authorization.withheld.modelCalls++
      options.onModelCall?.(messages)
    }
    await runModelSteps({
      provider: runtime.provider,
      messages: tools.messages,
      registry: engine.registry,
      clientTools,
      ...(options.input.toolChoice ? { toolChoice: options.input.toolChoice } : {}),
      nativeTools: tools.nativeTools,
      language: tools.language,
      toolImages: chooseToolImageHandling(runtime, engine.logger),
      maxToolSteps: runtime.config.llm.max_tool_steps,
      temperature: runtime.config.llm.temperature,
      maxTokens: runtime.config.llm.max_tokens,
      signal,
      session: options.input.session,
      turn: handle.turn,
      logger: engine.logger,
      onModelCall,
      // Tools run only for a granted turn: never for words not yet said.
      beforeTools: () => authorization.whenGranted,
      onEvent: stages.push,
      readPacer: engine.replyReads,
    })
    return outcome({})
  } catch (error) {
    if (signal.aborted) return outcome({ interrupted: true, reason: readInterruptReason(signal) })
    return outcome({ error: toCharpipeError(error) })
  }
}

/**
 * Answers a resend of a stored input from the store (replay-stored-turn.ts); true when the turn was
 * closed that way. Only inputs with the client's id can be resends.
 */
async function replayIfStored(
  options: RunTurnOptions,
  state: TurnState,
  held?: EngineRuntime,
): Promise<boolean> {
  const { input } = options
  if (input.id === undefined || input.stateless) return false
  // Before the lock the runtime is only borrowed for the look-up: the turn takes it once admitted.
  const runtime = held ?? acquireTurnRuntime(options.engine, options.input.character)
  try {
    const turn = options.handle.turn
    const silence = isSilenceAllowed({
      config: runtime.config,
      trigger: options.output.trigger,
      source: options.source,
    })
    return await replayStoredTurn({ runtime, input, turn, closer: state.closer, silence })
  } finally {
    if (!held) releaseTurnRuntime(options.engine, runtime)
  }
}

/** Takes the current runtime for this turn (counted until it is released). */
function acquireRuntime(options: RunTurnOptions, state: TurnState): EngineRuntime {
  // A reload that removed the character meanwhile: the turn ends with an error.
  state.runtime = acquireTurnRuntime(options.engine, options.input.character)
  return state.runtime
}

/**
 * A turn that did not get past its lane or its lock. A lock failure (Redis away, or the wait was too
 * long) closes it with that error. Aborted before it could start, it closes now and is stored after
 * the turn before it, in its input's place in a cluster, unless an interrupt cancelled it.
 */
async function closeUnadmitted(
  options: RunTurnOptions,
  state: TurnState,
  previous: Promise<void>,
  error: unknown,
): Promise<void> {
  const { engine, handle } = options
  const runtime = acquireRuntime(options, state)
  if (!state.signal.aborted) {
    // Refused as late, an input another attempt of which stored it meanwhile is answered from the store.
    if (isLateInputRefusal(error) && (await replayIfStored(options, state, runtime))) return
    const failure = describeUnadmitted(options.input, error)
    engine.logger.warn({ session: options.input.session, turn: handle.turn, err: failure }, 'turn not run')
    closeWithoutRunning(state.closer, runtime, failure)
    return
  }
  const outcome = closeWithoutRunning(state.closer, runtime, undefined, readInterruptReason(state.signal))
  // Stored after the turn before it, in its input's place (see `storeAbortedBeforeLock`).
  await reportLate(
    options,
    storeAbortedBeforeLock({
      persist: persistOptionsOf(options, state, runtime, outcome),
      previous,
      coordinator: engine.cluster?.coordinator,
      lane: laneKeyOf(options.input.session, options.input.character),
      order: handle.order,
    }),
  )
}

/**
 * Why a turn that never ran ended. An input with the client's id may be a resend whose earlier
 * attempt is still on its way to the store (on another server, say): "not stored" would not be the
 * truth, so it is `store_outcome_unknown`, and the client resends with the same id. Not so an input
 * the cluster refused because a newer one took its turn first (`interrupted_by_new_input`): that is
 * final, and passes as it is.
 */
function describeUnadmitted(input: TurnInput, error: unknown): CharpipeError {
  const reason = CharpipeError.isInstance(error) ? error.message : String(error)
  const isLockFailure = !CharpipeError.isInstance(error) || error.code === 'store_unavailable'
  if (isLockFailure && input.id !== undefined && !input.stateless) {
    return new CharpipeError(
      'store_outcome_unknown',
      `the turn did not run (${reason}); an earlier attempt may still store it: send the input again with the same id (${JSON.stringify(input.id)})`,
      { cause: error },
    )
  }
  if (CharpipeError.isInstance(error)) return error
  return new StoreUnavailableError(`the turn lock failed: ${reason}`, { store: 'cluster' })
}

/** A turn that ends without running: its one error, then `llm_done`. */
function closeWithoutRunning(
  closer: TurnCloser,
  runtime: EngineRuntime,
  error: CharpipeError | undefined,
  reason?: TurnOutcome['reason'],
): TurnOutcome {
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

function persistOptionsOf(
  options: RunTurnOptions,
  state: TurnState,
  runtime: EngineRuntime,
  outcome: TurnOutcome,
): PersistTurnOptions {
  return {
    runtime,
    parts: options.engine.parts,
    input: answeredInput(options),
    turn: options.handle.turn,
    startedAt: state.startedAt,
    outcome,
    logger: options.engine.logger,
    trigger: options.output.trigger,
  }
}

/** A write that ends after `llm_done` is reported on its own, and always logged. */
function reportLate(options: RunTurnOptions, write: Promise<TurnWriteResult>) {
  const { engine, handle } = options
  const input = answeredInput(options)
  return write.then((result) =>
    reportTurnNotStored({
      write: result,
      session: input.session,
      turn: handle.turn,
      inputId: input.id,
      logger: engine.logger,
      report: (event) => {
        engine.bus.emit(event)
        options.onTurnNotStored?.(event)
      },
    }),
  )
}

/**
 * A new session's greeting goes out before the reply; a store that fails here costs the greeting
 * only (the turn itself then meets the same store, and says so).
 */
async function sendGreeting(
  options: RunTurnOptions,
  state: TurnState,
  runtime: EngineRuntime,
): Promise<void> {
  const { engine } = options
  if (options.input.stateless) return
  try {
    const greeting = await openSession({
      runtime,
      session: options.input.session,
      opened: engine.opened,
      random: engine.random,
    })
    if (!greeting) return
    state.emit({
      type: 'greeting',
      text: greeting.content,
      emotion: greeting.emotion ?? runtime.config.character.default_emotion,
    })
  } catch (error) {
    engine.logger.warn({ err: error, session: options.input.session }, 'the greeting was not stored')
  }
}

/**
 * Long-term memory of a stored turn, in the background once the turn is over: the session's next
 * turn never waits for it (a frozen memory store costs the memory, not the conversation). The
 * memory waits for the turn's write when it is still running (a reply cut short) and is taken only
 * if the write says the turn is stored (a regenerate not known to be stored still forgets the
 * memories of the turn it replaced, if the history no longer has it once its write is settled). A session's memory writes run one after another (a fact
 * extraction sees the facts of the turn before); each store call is bounded by its deadline, and a
 * failure is logged (rememberCompletedTurn) and counted with the store's failures. The work holds
 * the runtime until it ends; returns whether it took the runtime over.
 */
function scheduleMemory(
  options: RunTurnOptions,
  persist: PersistTurnOptions,
  write: TurnWriteResult | Promise<TurnWriteResult> | undefined,
): boolean {
  const { engine } = options
  const { runtime } = persist
  const store = runtime.memoryStore
  // No write tried (the store was down when the history was read): nothing to remember or forget.
  if (write === undefined || !store || !runtime.config.memory.enabled) return false
  // A write that failed leaves nothing to remember; a regenerate's write whose outcome is unknown
  // may still have replaced its turn, whose memories then go.
  const regenerates = persist.input.replaces !== undefined
  if ('status' in write && write.status !== 'stored' && !regenerates) return false
  const extractor = runtime.config.memory.extract
    ? createModelFactExtractor({
        provider: runtime.provider,
        timeoutMs: runtime.config.memory.extract_timeout_ms,
        logger: createChildLogger(engine.logger, 'memory'),
      })
    : undefined
  const key = `memory:${laneKeyOf(persist.input.session, persist.input.character)}`
  engine.background.schedule(key, async () => {
    try {
      const written = await write
      const remembering = { ...persist, closing: engine.background.closing }
      if (written.status === 'stored') await rememberCompletedTurn(remembering, extractor)
      else if (regenerates)
        await forgetUnkeptMemories(
          { ...remembering, ...(written.deadline === undefined ? {} : { settleBy: written.deadline }) },
          store,
        )
    } finally {
      releaseTurnRuntime(engine, runtime)
    }
  })
  return true
}
