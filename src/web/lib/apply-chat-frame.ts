/**
 * The chat view's state and how each WebSocket frame changes it: a turn is matched by its `turn` id
 * (the first event of a new id claims the oldest turn still waiting for one), chunks grow its
 * subtitles, sentences arrive with their emotion, and `llm_done` closes it. Errors are kept as codes
 * (described at render time, in the page's language); an interruption is recorded apart from them.
 * A turn the server started by itself (its `trigger` is not `input`: say, event, audience, idle)
 * never claims a turn waiting for its own input's events; it gets a turn of its own.
 */
import type { ServerFrame } from './create-chat-socket.js'
import { type ChatErrorFrame, isInterruptionCode } from './describe-chat-error.js'

export interface SentenceView {
  index: number
  text: string
  emotion: string
}

export interface TurnView {
  /** Server turn id; absent until the first event of the turn arrives. */
  id?: string
  userText: string
  /** Restored: the turn opened with a stored `event` (an idle turn's instruction, an owner's event). */
  eventText?: string
  /** The character's inner thought before its reply (`llm_thought`, or `thought` of the stored reply). */
  thought?: string
  /** The turn ended in silence: `llm_done` with `silent: true`, or the stored reply `[silence]`. */
  silent?: boolean
  /** What started the turn, from its events' `trigger` (`input`, `say`, `event`, `audience`, `idle`). */
  trigger?: string
  /** What opened it was an event given to the session (`sessions.event`), not an idle turn. */
  toldEvent?: boolean
  userEmotion?: string
  imageCount: number
  subtitles: string
  sentences: SentenceView[]
  emotion?: string
  status: 'waiting' | 'streaming' | 'done'
  interrupted: boolean
  /** Set when a new input cut this reply short (`interrupted_by_new_input`). */
  interruptedByNewInput?: boolean
  errors: ChatErrorFrame[]
  /** Read back from the history store rather than lived on this page. */
  restored?: boolean
  /** Restored: the store marked the question as failed (its error is not stored). */
  failed?: boolean
  /** The turn report of `llm_done`: what the user waited for, and what the model was paid for. */
  report?: TurnReport
}

export interface TurnReport {
  firstSentenceMs?: number
  totalMs?: number
  promptTokens?: number
  completionTokens?: number
  cachedTokens?: number
}

/** The timing and usage of an `llm_done` frame, when it carries them. */
function readTurnReport(frame: ServerFrame): TurnReport | undefined {
  const timing = (frame.timing ?? {}) as Record<string, unknown>
  const usage = (frame.usage ?? {}) as Record<string, unknown>
  const number = (value: unknown) => (typeof value === 'number' && Number.isFinite(value) ? value : undefined)
  const report: TurnReport = {
    firstSentenceMs: number(timing.first_sentence_ms),
    totalMs: number(timing.total_ms),
    promptTokens: number(usage.prompt_tokens),
    completionTokens: number(usage.completion_tokens),
    cachedTokens: number(usage.cached_tokens),
  }
  return Object.values(report).some((value) => value !== undefined) ? report : undefined
}

export interface ChatState {
  turns: TurnView[]
  /** The character's current emotion (shown large). */
  emotion?: string
  /** Frame-level errors (`error` frames) and sending problems. */
  errors: ChatErrorFrame[]
}

export const initialChatState: ChatState = { turns: [], errors: [] }

export function addUserTurn(
  state: ChatState,
  input: { text: string; emotion?: string; imageCount: number },
): ChatState {
  const turn: TurnView = {
    userText: input.text,
    userEmotion: input.emotion,
    imageCount: input.imageCount,
    subtitles: '',
    sentences: [],
    status: 'waiting',
    interrupted: false,
    errors: [],
  }
  return { ...state, turns: [...state.turns, turn] }
}

/** An event the owner told the character on this page: a note in the conversation, nobody's turn. */
export function addEventNote(state: ChatState, text: string): ChatState {
  const note: TurnView = {
    id: `event:${state.turns.length}`,
    userText: '',
    eventText: text,
    toldEvent: true,
    imageCount: 0,
    subtitles: '',
    sentences: [],
    status: 'done',
    interrupted: false,
    errors: [],
  }
  return { ...state, turns: [...state.turns, note] }
}

function readErrorFrame(frame: ServerFrame): ChatErrorFrame {
  const error: ChatErrorFrame = { code: String(frame.code ?? 'error') }
  if (typeof frame.message === 'string') error.message = frame.message
  if (typeof frame.status === 'number') error.status = frame.status
  return error
}

function applyToTurn(turn: TurnView, frame: ServerFrame): TurnView {
  const next: TurnView = { ...turn, status: turn.status === 'done' ? 'done' : 'streaming' }
  switch (frame.type) {
    case 'llm_chunk':
      next.subtitles = turn.subtitles + String(frame.text ?? '')
      break
    case 'llm_thought':
      // Several thoughts in a row are each whole; they read as one paragraph.
      next.thought = [turn.thought, String(frame.text ?? '')].filter(Boolean).join('\n')
      break
    case 'llm_emotion':
      next.emotion = String(frame.emotion ?? '')
      break
    case 'llm_sentence':
      next.sentences = [
        ...turn.sentences,
        {
          index: Number(frame.index ?? turn.sentences.length),
          text: String(frame.text ?? ''),
          emotion: String(frame.emotion ?? ''),
        },
      ]
      next.emotion = String(frame.emotion ?? turn.emotion ?? '')
      break
    case 'llm_error':
      if (isInterruptionCode(String(frame.code))) next.interruptedByNewInput = true
      else next.errors = [...turn.errors, readErrorFrame(frame)]
      break
    case 'llm_done':
      next.status = 'done'
      next.subtitles = typeof frame.text === 'string' ? frame.text : turn.subtitles
      next.emotion = typeof frame.emotion === 'string' && frame.emotion ? frame.emotion : turn.emotion
      next.interrupted = frame.interrupted === true || turn.interruptedByNewInput === true
      next.report = readTurnReport(frame)
      if (frame.silent === true) next.silent = true
      break
  }
  return next
}

const emotionFrames = new Set(['llm_emotion', 'llm_sentence', 'llm_done'])

/**
 * A character's greeting that opened the session with this turn's input: the character's first
 * reply, shown before the turn whose input it came with (the one waiting for its first event).
 */
function addGreeting(state: ChatState, frame: ServerFrame): ChatState {
  const text = String(frame.text ?? '')
  const emotion = String(frame.emotion ?? '')
  const greeting: TurnView = {
    // An id of its own, so the turn's own events never land on it.
    id: `greeting:${String(frame.turn ?? '')}`,
    userText: '',
    imageCount: 0,
    subtitles: text,
    sentences: text ? [{ index: 0, text, emotion }] : [],
    emotion,
    status: 'done',
    interrupted: false,
    errors: [],
  }
  const turns = [...state.turns]
  const waiting = turns.findIndex((turn) => turn.id === undefined || turn.id === frame.turn)
  turns.splice(waiting === -1 ? turns.length : waiting, 0, greeting)
  return { ...state, turns, emotion: state.emotion ?? emotion }
}

/** Applies one server frame for `session`; frames of other sessions are ignored. */
export function applyChatFrame(state: ChatState, frame: ServerFrame, session: string): ChatState {
  if (frame.type === 'error') return { ...state, errors: [...state.errors, readErrorFrame(frame)] }
  if (frame.session !== undefined && frame.session !== session) return state
  if (frame.type === 'greeting') return addGreeting(state, frame)
  if (!frame.type.startsWith('llm_') && !frame.type.startsWith('tool_')) return state
  const turns = [...state.turns]
  let index = turns.findIndex((turn) => turn.id !== undefined && turn.id === frame.turn)
  if (index === -1) {
    const ownInput = frame.trigger === undefined || frame.trigger === 'input'
    index = ownInput ? turns.findIndex((turn) => turn.id === undefined) : -1
    if (index === -1) {
      // A turn started elsewhere (another tab, an API client) on this session.
      turns.push({
        userText: '',
        imageCount: 0,
        subtitles: '',
        sentences: [],
        status: 'waiting',
        interrupted: false,
        errors: [],
      })
      index = turns.length - 1
    }
    const trigger = typeof frame.trigger === 'string' ? frame.trigger : undefined
    turns[index] = { ...(turns[index] as TurnView), id: frame.turn, ...(trigger ? { trigger } : {}) }
  }
  const updated = applyToTurn(turns[index] as TurnView, frame)
  turns[index] = updated
  const emotion = emotionFrames.has(frame.type) && updated.emotion ? updated.emotion : state.emotion
  return { ...state, turns, emotion }
}

/** How a finished turn ended, for its closing line. */
export function readTurnOutcome(turn: TurnView): 'waiting' | 'streaming' | 'done' | 'interrupted' | 'failed' {
  if (turn.status !== 'done') return turn.status
  if (turn.errors.length > 0 || turn.failed === true) return 'failed'
  return turn.interrupted ? 'interrupted' : 'done'
}

/** True while a reply is running (the Interrupt button is useful). */
export function isReplyRunning(state: ChatState): boolean {
  return state.turns.some((turn) => turn.status !== 'done')
}
