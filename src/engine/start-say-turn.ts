/**
 * A `say` turn (`sessions.say`): the character says the given words as they are, with no model call.
 * It is a turn like any other to whoever listens — it queues in the session's lane behind the turns
 * there (never cutting a reply), its text goes out as `llm_emotion`, `llm_chunk`, the sentences of
 * the normal sentence splitter and `llm_done`, all with `trigger: "say"`, and it is stored as the
 * character's words (a turn with a reply and no user message, as a greeting is).
 */
import type { TurnLease } from '../cluster/turn-coordinator.js'
import { createCommitGate } from '../memory/commit-gate.js'
import { createReplyParser } from '../reply/create-reply-parser.js'
import type { CharpipeEvent } from '../shared/events.js'
import { raceAbort } from './abortable.js'
import { createTurnCloser } from './close-turn.js'
import { confirmTurnWrite, notStored, type TurnWriteResult } from './confirm-turn-write.js'
import { conversationScopeOf } from './conversation-scope-of.js'
import type { EngineContext } from './engine-context.js'
import { acquireTurnRuntime, releaseTurnRuntime } from './engine-lifecycle.js'
import type { EngineRuntime } from './engine-runtime.js'
import { laneKeyOf } from './lane-key.js'
import { createTurnHandle, type TurnHandle } from './session-lanes.js'
import type { TurnSink } from './turn-event.js'
import { readInterruptReason } from './turn-outcome.js'
import { createTurnTimer } from './turn-timing.js'

export interface StartSayTurnOptions {
  context: EngineContext
  session: string
  /** An id of `characters` (checked by the caller); absent: the default character. */
  character: string | undefined
  /** The words, said exactly as given. */
  text: string
  /** One of the character's emotions (checked by the caller); absent: its default. */
  emotion: string | undefined
  /** Where the turn's events go besides the event bus (the session's followers). */
  sink: TurnSink
}

export interface StartSayTurnResult {
  turn: string
  /** Settles when the turn has ended and left the lane. */
  ended: Promise<void>
}

export function startSayTurn(options: StartSayTurnOptions): StartSayTurnResult {
  const { context, session, character } = options
  const handle = createTurnHandle(session, false, undefined, context.clock.now)
  handle.character = character
  const timer = createTurnTimer({ now: context.clock.now })
  const watchers = context.observers.flatMap(
    (observer) => observer({ session, turn: handle.turn, trigger: 'say' }) ?? [],
  )
  // Each event completed as any turn's (session, turn id, trigger), to the bus, the sink and the
  // turn observers; the closer lets nothing through after `llm_done`.
  const closer = createTurnCloser({
    emit(partial) {
      const event = { ...partial, session, turn: handle.turn, trigger: 'say' } as CharpipeEvent
      timer.observe(event)
      context.bus.emit(event)
      options.sink.push(event)
      for (const watch of watchers) watch(event)
      if (event.type === 'llm_done') options.sink.close()
    },
    readTimer: () => timer,
  })
  const previous = context.lanes.enter(handle, 'queue')
  const ended = speak(options, handle, closer, previous)
    .catch((error: unknown) => {
      context.logger.error({ err: error, turn: handle.turn }, 'the say turn failed unexpectedly')
      closer.closeUnexpectedly(context.state.current.config.character.default_emotion)
    })
    .finally(() => context.lanes.leave(handle))
  handle.ended = ended
  return { turn: handle.turn, ended }
}

async function speak(
  options: StartSayTurnOptions,
  handle: TurnHandle,
  closer: ReturnType<typeof createTurnCloser>,
  previous: Promise<void>,
): Promise<void> {
  const { context } = options
  const signal = handle.controller.signal
  try {
    await raceAbort(previous, signal)
  } catch {
    // Interrupted while it waited (a new input, a clear of the queue): nothing was said.
    const emotion = options.emotion ?? context.state.current.config.character.default_emotion
    closer.close(
      {
        displayText: '',
        emotion,
        sentences: [],
        interrupted: true,
        reason: readInterruptReason(signal),
      },
      '',
    )
    return
  }
  // In a cluster the words are said and stored under the session's lock, as any turn's reply: never
  // beside a turn of another server, never stored between its input and its reply.
  let lease: TurnLease | undefined
  try {
    lease = await context.cluster?.coordinator.acquire(laneKeyOf(options.session, options.character), signal)
  } catch (error) {
    const emotion = options.emotion ?? context.state.current.config.character.default_emotion
    const unsaid = { displayText: '', emotion, sentences: [], interrupted: signal.aborted }
    if (signal.aborted) closer.close({ ...unsaid, reason: readInterruptReason(signal) }, '')
    else closer.close(unsaid, '', notStored('the session lock could not be taken; nothing was said', error))
    return
  }
  handle.running = true
  const runtime = acquireTurnRuntime(context, options.character)
  try {
    const emotion = options.emotion ?? runtime.config.character.default_emotion
    const sentences = sendWords(runtime, options.text, emotion, closer)
    // The words leave before their history row: a transport that holds its writes until the loop's
    // check phase (the server's sockets) would otherwise send them only after the write, as a
    // model reply's (turn/run-turn.ts).
    await context.passCheckPhase?.()
    const write = await storeWords(runtime, options, handle.turn, emotion, lease)
    closer.close({ displayText: options.text, emotion, sentences, interrupted: false }, options.text, write)
  } finally {
    releaseTurnRuntime(context, runtime)
    await lease?.release()
  }
}

/**
 * The words as a reply's events: the plain format's parser with the character's sentence settings
 * (speech filters, lengths), so the sentences are those of a model reply with the same text.
 */
function sendWords(
  runtime: EngineRuntime,
  text: string,
  emotion: string,
  closer: ReturnType<typeof createTurnCloser>,
): string[] {
  const parser = createReplyParser({
    ...runtime.parserOptions,
    replyFormat: 'plain',
    inlineEmotionTags: false,
    defaultEmotion: emotion,
    silence: false,
  })
  const sentences: string[] = []
  closer.deliver({ type: 'llm_emotion', emotion })
  for (const event of [...parser.push(text), ...parser.end()]) {
    if (event.type === 'display-delta' && event.text) closer.deliver({ type: 'llm_chunk', text: event.text })
    else if (event.type === 'sentence') {
      sentences.push(event.text)
      closer.deliver({ type: 'llm_sentence', index: event.index, text: event.text, emotion })
    }
  }
  return sentences
}

/**
 * Stored as the character's words; a failed write is told in `llm_done`'s error, as any turn's. In a
 * cluster only while the lock is still this turn's, with its fence (the store refuses a stale one).
 */
async function storeWords(
  runtime: EngineRuntime,
  options: StartSayTurnOptions,
  turn: string,
  emotion: string,
  lease: TurnLease | undefined,
): Promise<TurnWriteResult> {
  if (lease) {
    try {
      if (!(await lease.confirm()))
        return notStored('it outlived its lock (cluster.lease_ms) and the session moved on')
    } catch (error) {
      return notStored(error instanceof Error ? error.message : String(error), error)
    }
  }
  const scope = conversationScopeOf(runtime, options.session)
  const deadline = Date.now() + runtime.config.storage.timeout_ms
  const commit = createCommitGate()
  try {
    await runtime.historyStore.appendTurn(
      scope,
      {
        turn,
        assistant: { role: 'assistant', content: options.text, emotion, createdAt: Date.now() },
        ...(lease ? { fence: lease.fence } : {}),
      },
      { deadline, commitGate: commit.gate },
    )
    return { status: 'stored' }
  } catch (error) {
    return confirmTurnWrite({
      store: runtime.historyStore,
      scope,
      turn,
      deadline,
      failure: error,
      commit,
    })
  }
}
