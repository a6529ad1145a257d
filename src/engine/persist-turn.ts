/**
 * After a turn: store the user message and the reply (R4.1), apply the history reset policy (R4.2),
 * then feed long-term memory (R4.3). An interrupted reply is stored as far as it was spoken — the
 * sentences already emitted, or exactly what the client says was heard — with no `...` padding, so
 * the model never learns to answer with silence. Failures are returned or logged, never thrown.
 */
import type { TurnInput } from '../context/types.js'
import { createCommitGate } from '../memory/commit-gate.js'
import { hasStoredTurn } from '../memory/history/has-stored-turn.js'
import type { FactExtractor } from '../memory/index.js'
import type { ConversationScope, StoredMessage } from '../memory/types.js'
import { silenceSignal } from '../reply/create-silence-gate.js'
import type { CharpipeError } from '../shared/errors.js'
import type { TurnTrigger } from '../shared/events.js'
import { resolveCharacterLanguage, resolveUserName } from '../shared/language/index.js'
import { createChildLogger, type Logger } from '../shared/logger.js'
import { acceptHeardText } from './accept-heard-text.js'
import { confirmTurnWrite, type TurnWriteResult } from './confirm-turn-write.js'
import { conversationScopeOf } from './conversation-scope-of.js'
import type { EngineParts } from './engine-parts.js'
import type { EngineRuntime } from './engine-runtime.js'
import { forgetUnkeptMemories } from './forget-unkept-memories.js'
import { joinSentences } from './join-sentences.js'
import { memoryTargetOfTurn } from './memory-target-of-turn.js'
import type { TurnOutcome } from './turn-outcome.js'

export interface PersistTurnOptions {
  runtime: EngineRuntime
  parts: EngineParts
  input: TurnInput
  turn: string
  startedAt: number
  outcome: TurnOutcome
  logger: Logger
  /** The cluster lock's fencing number, when the turn held one (see `CompletedTurn.fence`). */
  fence?: number
  /**
   * What started the turn: an idle turn's input is charpipe's instruction, and an `event` turn's
   * input the event it answers: both are stored as an `event`, and neither is remembered as words.
   */
  trigger?: TurnTrigger
  /**
   * Aborted when the engine closes (`BackgroundWork.closing`): the memory's check against the
   * history, retried while the stores do not answer, then stops soon (forget-unkept-memories.ts).
   */
  closing?: AbortSignal
}

/** The triggers whose input is not anyone's words: stored with the role `event`. */
function isEventTrigger(trigger: TurnTrigger | undefined): boolean {
  return trigger === 'idle' || trigger === 'event'
}

/** Most turns read back to evaluate a token-based reset (the context after a reset is small). */
const resetWindowTurns = 1000

/** The reply text as it should be remembered. */
function selectStoredReply(outcome: TurnOutcome): string {
  if (outcome.reason?.kind === 'interrupt' && outcome.reason.heard !== undefined) {
    const heard = acceptHeardText({
      heard: outcome.reason.heard,
      displayText: outcome.displayText,
      sentences: outcome.sentences,
    })
    if (heard !== undefined) return heard
  }
  if (outcome.interrupted || outcome.error) return joinSentences(outcome.sentences)
  return outcome.displayText
}

/** The model refused the request itself (400, 413, 415, 422): an attachment may be the cause. */
function isRequestRefused(error: CharpipeError | undefined): boolean {
  const status = error?.code === 'upstream_http' ? error.status : undefined
  return status === 400 || status === 413 || status === 415 || status === 422
}

/**
 * The user message as stored. Attachments the pipeline refused are left out (the prompt had a
 * placeholder for them), and so are all of a turn whose request the model refused, since one of
 * them may be why: a stored reference is replayed with every later turn, and must not fail those.
 */
function buildUserMessage(options: PersistTurnOptions): StoredMessage {
  const { input, startedAt, outcome } = options
  const refused = outcome.refusedAttachments
  const attachments = isRequestRefused(outcome.error)
    ? []
    : [...(input.images ?? []), ...(input.files ?? []), ...(input.replyImages ?? [])].filter(
        (reference) => !refused?.has(reference),
      )
  return {
    role: isEventTrigger(options.trigger) ? 'event' : 'user',
    content: input.text,
    createdAt: startedAt,
    ...(input.emotion ? { emotion: input.emotion } : {}),
    ...(attachments.length > 0 ? { attachments } : {}),
  }
}

async function applyResetPolicy(options: PersistTurnOptions, scope: ConversationScope): Promise<void> {
  const { runtime } = options
  const reset = runtime.config.history.reset
  if (reset.policy === 'none') return
  // countTurns counts the current context; only the token policy needs the messages themselves.
  const turns = await runtime.historyStore.countTurns(scope)
  const messages =
    reset.policy === 'tokens' ? await runtime.historyStore.loadRecent(scope, resetWindowTurns) : []
  if (runtime.resetPolicy.shouldReset({ turns, messages })) {
    await runtime.historyStore.resetContext(scope)
    options.logger.info({ session: scope.session, turns }, 'history context reset by policy')
  }
}

/**
 * Stores the turn and applies the reset policy; says whether the turn is stored (confirmed by
 * reading it back when the write failed or missed its deadline), never throws.
 */
export async function storeTurn(options: PersistTurnOptions): Promise<TurnWriteResult> {
  const { runtime, input, outcome } = options
  if (input.stateless) return { status: 'not_stored' }
  const scope = conversationScopeOf(runtime, input.session)
  // Silence is stored as the signal the model wrote: later turns show it the reply it chose, in its
  // own format, and the roles keep alternating (an empty reply would be dropped, or sent as nothing).
  const reply = outcome.silent ? silenceSignal : selectStoredReply(outcome)
  const assistant: StoredMessage | undefined = reply.trim()
    ? {
        role: 'assistant',
        content: reply,
        emotion: outcome.emotion,
        createdAt: Date.now(),
        ...(outcome.interrupted ? { interrupted: true } : {}),
        ...(outcome.thought === undefined ? {} : { thought: outcome.thought }),
      }
    : undefined
  // A failed turn with the client's id is not kept: its resend must run again, not replay a
  // failure. The turn's own error already says it failed.
  if (outcome.error && !assistant && input.id !== undefined) return { status: 'not_stored' }
  const deadline = Date.now() + runtime.config.storage.timeout_ms
  const commit = createCommitGate()
  try {
    const user = buildUserMessage(options)
    // No reply at all: kept for the record, marked so the context leaves it out of later turns.
    if (outcome.error && !assistant) user.failed = true
    await runtime.historyStore.appendTurn(
      scope,
      {
        turn: options.turn,
        user,
        ...(assistant ? { assistant } : {}),
        ...(options.fence === undefined ? {} : { fence: options.fence }),
      },
      // A regenerated reply takes the place of the turn it answers again; without a reply, the
      // earlier answer stays.
      {
        deadline,
        commitGate: commit.gate,
        ...(input.replaces !== undefined && assistant ? { replaces: input.replaces } : {}),
      },
    )
  } catch (error) {
    const result = await confirmTurnWrite({
      store: runtime.historyStore,
      scope,
      turn: options.turn,
      deadline,
      failure: error,
      inputId: input.id,
      commit,
    })
    if (result.status !== 'stored') return result
  }
  try {
    await applyResetPolicy(options, scope)
  } catch (error) {
    // The turn is stored; only the reset waits for the next turn.
    options.logger.warn({ err: error, session: input.session }, 'the history reset policy could not run')
  }
  return { status: 'stored' }
}

/**
 * The turn a regenerated reply replaced, once the history no longer has it: its memories go with
 * it. A regenerate the history did not apply (the turn was no longer the newest, or this one failed
 * before any reply) leaves the earlier turn said, and remembered.
 */
async function findReplacedTurn(options: PersistTurnOptions): Promise<string | undefined> {
  const replaced = options.input.replaces
  if (replaced === undefined) return undefined
  const scope = conversationScopeOf(options.runtime, options.input.session)
  try {
    return (await hasStoredTurn(options.runtime.historyStore, scope, replaced)) ? undefined : replaced
  } catch (error) {
    // Unknown whether it was replaced: its memories stay, and this turn is still remembered.
    options.logger.warn(
      { err: error, turn: replaced },
      'could not tell whether the regenerated turn was replaced',
    )
    return undefined
  }
}

/**
 * Long-term memory after the turn; a failure only costs this memory, so it is logged. With an
 * extractor, the model decides which facts to keep (see `createModelFactExtractor`). A regenerated
 * reply's turn forgets what was remembered from the turn it replaced.
 */
export async function rememberCompletedTurn(
  options: PersistTurnOptions,
  extractor?: FactExtractor,
): Promise<void> {
  const { runtime, input } = options
  const store = runtime.memoryStore
  // What the speaker said, without the group chat's framing (that is in the stored history).
  const said = input.spokenText ?? input.text
  if (!store || !runtime.config.memory.enabled || !said.trim() || input.stateless) return
  // An idle turn's input is charpipe's instruction, an event turn's the event: nobody said them.
  if (isEventTrigger(options.trigger)) return
  const speaker = input.speaker
  try {
    const replaces = await findReplacedTurn(options)
    const target = memoryTargetOfTurn(runtime, input)
    await options.parts.rememberTurn(store, {
      scope: target.scope,
      ...(target.metadata ? { metadata: { ...target.metadata } } : {}),
      user: said,
      assistant: selectStoredReply(options.outcome),
      turn: options.turn,
      ...(replaces !== undefined ? { replaces } : {}),
      time: options.startedAt,
      speakerNames: {
        user: speaker
          ? `${speaker.name || speaker.id}(${speaker.id})`
          : resolveUserName(runtime.config.character),
        assistant: runtime.config.character.name,
      },
      language: resolveCharacterLanguage(runtime.config.character),
      ...(extractor ? { extractor, logger: createChildLogger(options.logger, 'memory') } : {}),
    })
  } catch (error) {
    options.logger.error(
      { err: error, session: input.session },
      'storing the turn in long-term memory failed',
    )
  }
  await forgetUnkeptMemories(options, store)
}
