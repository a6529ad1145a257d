/**
 * The events of one turn, as PROTOCOL.md fixes them for the WebSocket, SSE and the library iterator.
 * Every event carries `session` and `turn`; `llm_done` comes exactly once per turn and always last.
 */
import type { CharpipeErrorCode } from './errors.js'
import type { TurnTiming } from './turn-timing.js'

export type { TurnTiming }

interface TurnEventBase {
  session: string
  /** Turn id, unique within the process. */
  turn: string
  /** What started the turn (see `TurnTrigger`). */
  trigger?: TurnTrigger
}

/**
 * What started a turn: an input, audience messages, the character itself after a quiet spell
 * (`idle`), words given to the character to say as they are (`say`), or an event it answers (`event`).
 */
export type TurnTrigger = 'input' | 'audience' | 'idle' | 'say' | 'event'

export interface LlmChunkEvent extends TurnEventBase {
  type: 'llm_chunk'
  /** Display text delta: emotion JSON and inline tags removed. */
  text: string
}

export interface LlmEmotionEvent extends TurnEventBase {
  type: 'llm_emotion'
  emotion: string
}

/**
 * The character's inner thought before its line (`character.thoughts`): never spoken, never in
 * `llm_chunk`, `llm_sentence` or `llm_done.text`; stored with the turn.
 */
export interface LlmThoughtEvent extends TurnEventBase {
  type: 'llm_thought'
  text: string
}

export interface LlmSentenceEvent extends TurnEventBase {
  type: 'llm_sentence'
  index: number
  /** Speech text: what a TTS engine should read (speech filters applied). */
  text: string
  emotion: string
}

export interface ToolCallEvent extends TurnEventBase {
  type: 'tool_call'
  id: string
  name: string
  arguments: unknown
  /**
   * A tool of the input's client (`clientPrompt.tools`): not run here. The turn ends after the
   * model's call, and the client sends the result back with its next input.
   */
  client?: true
}

export interface ToolResultEvent extends TurnEventBase {
  type: 'tool_result'
  id: string
  result: unknown
}

export interface LlmErrorEvent extends TurnEventBase {
  type: 'llm_error'
  code: CharpipeErrorCode
  message: string
  status?: number
}

/** Tokens of one turn as the model reported them, summed over its model calls (tool rounds). */
export interface TurnUsage {
  prompt_tokens: number
  completion_tokens: number
  /** Prompt tokens served from the provider's cache, when it says. */
  cached_tokens?: number
}

export interface LlmDoneEvent extends TurnEventBase {
  type: 'llm_done'
  /** The full display text of the reply (as far as it got). */
  text: string
  emotion: string
  interrupted: boolean
  /** The turn report's timing (absent only when the turn failed unexpectedly). */
  timing?: TurnTiming
  /** Present when the model reported its usage. */
  usage?: TurnUsage
  /** For an audience turn (`trigger: "audience"`): the ids of the messages it answers. */
  replying_to?: string[]
  /** The provider (its config name) that answered: a fallback's when the primary failed. */
  provider?: string
  /** The model that answered (the fallback's model when a fallback did). */
  model?: string
  /**
   * `timed_out`: recall (long-term memory search) missed `memory.recall_timeout_ms`, so this reply
   * was made without memories. Absent when recall answered in time or did not run.
   */
  memory?: 'timed_out'
  /**
   * The character chose to say nothing (`conversation.silence`): `text` is empty, and no chunk or
   * sentence of the turn went out.
   */
  silent?: true
}

/**
 * A character's greeting opening a new session (`greeting` / `alternate_greetings`): stored as its
 * first reply, and sent before anything of the turn whose input found the session new.
 */
export interface GreetingEvent extends TurnEventBase {
  type: 'greeting'
  /** The greeting's display text ({{char}} and {{user}} filled in). */
  text: string
  emotion: string
}

/**
 * After `llm_done`: the turn's write failed, or its outcome could not be known (`code`
 * `store_unavailable` or `store_outcome_unknown`), for a turn whose write ran after `llm_done` (an
 * interrupted turn: barge-in), or, in a cluster, a turn cut before it ran that a newer input's turn
 * went ahead of (`interrupted_by_new_input`: not stored, for good). Not part of the turn's stream, which ended with `llm_done`; the
 * WebSocket sends it to the connection that ran the turn, and the event bus to its listeners.
 */
export interface TurnNotStoredEvent {
  type: 'turn_not_stored'
  session: string
  turn: string
  /**
   * The input's id, when the client gave one: resend it with this id, unless `code` is
   * `interrupted_by_new_input` (a newer input took its turn first: refused for good).
   */
  id?: string
  code: CharpipeErrorCode
  message: string
}

export type CharpipeEvent =
  | GreetingEvent
  | LlmChunkEvent
  | LlmEmotionEvent
  | LlmThoughtEvent
  | LlmSentenceEvent
  | ToolCallEvent
  | ToolResultEvent
  | LlmErrorEvent
  | LlmDoneEvent

export type CharpipeEventType = CharpipeEvent['type']

export type CharpipeEventOf<T extends CharpipeEventType> = Extract<CharpipeEvent, { type: T }>

/** Names used by integrators porting from event-bus designs (`LLM_CHUNK`, …). */
export const legacyEventNames = {
  LLM_CHUNK: 'llm_chunk',
  LLM_EMOTION: 'llm_emotion',
  LLM_SENTENCE: 'llm_sentence',
  LLM_DONE: 'llm_done',
  LLM_ERROR: 'llm_error',
  TOOL_CALL: 'tool_call',
  TOOL_RESULT: 'tool_result',
} as const satisfies Record<string, CharpipeEventType>
