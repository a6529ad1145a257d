/**
 * A `Charpipe` that runs, for the server's tests: realistic event sequences (emotion, chunks,
 * sentences, done), per-session turns one at a time with a new input interrupting the running one,
 * `heard` cutting the stored reply, history kept across `reload`, and errors on request. The reply
 * names the configured provider, so a provider switch shows in the next turn.
 *
 * Input text markers: `!error CODE` answers `llm_error` with that code; `!slow` streams its first
 * chunk at once and the next ones 20 ms apart on the fake's clock. On a manual clock that stands
 * still, a `!slow` turn waits after its first chunk until it is interrupted or the clock moves: a
 * test interrupts it while it streams without racing real time.
 *
 * Not exported from `charpipe/testing`: it follows every change of the `Charpipe` object and records
 * what the server's tests read (reloads, observed lines, audience calls), so its shape is not one a
 * library user could rely on. A server built on charpipe is tested over `createTurnHarness` instead.
 */

import { randomUUID } from 'node:crypto'
import { createSystemClock } from '../audience/create-system-clock.js'
import type { AudienceClock } from '../audience/types.js'
import type { CharpipeConfig } from '../config/schema.js'
import { listCharacterIds } from '../config/select-character-config.js'
import type { PreviewResult, ProcessorInfo } from '../context/types.js'
import { createTurnTimer } from '../engine/turn-timing.js'
import type {
  ActivityInput,
  AudienceInput,
  Charpipe,
  CharpipeListener,
  GenerateInput,
  GenerateOptions,
  InterruptOptions,
  RunOptions,
  TurnObserver,
} from '../engine/types.js'
import { type ValidatedObserveInput, validateObserveInput } from '../engine/validate-generate-input.js'
import { modelRoleOf } from '../memory/model-role-of.js'
import { createPeopleDirectory } from '../memory/people/create-people-directory.js'
import type { MemoryStore, StoredMessage } from '../memory/types.js'
import type { CharpipeErrorCode } from '../shared/errors.js'
import { BadRequestError } from '../shared/errors.js'
import type { CharpipeEvent, CharpipeEventType } from '../shared/events.js'
import { createFakeMemoryStore } from './create-fake-memory-store.js'
import { waitOnClockUntil } from './wait-on-clock.js'

export interface CreateFakeCharpipeOptions {
  config: CharpipeConfig
  /** Delay between chunks in ms, on `clock`. @default 0 */
  chunkDelayMs?: number
  /**
   * Where turns read time: the pace of their chunks, their timing and the stored messages'
   * `createdAt` (tests pass a manual clock). @default the system clock
   */
  clock?: AudienceClock
  memory?: MemoryStore | false
  /** Watch every turn's events as they go out, as `createCharpipe`'s `observers` do. */
  observers?: readonly TurnObserver[]
}

export interface FakeCharpipe extends Charpipe {
  /** Every config passed to `reload`, in order. */
  readonly reloads: CharpipeConfig[]
  /** Every line passed to `sessions.observe`, in order. */
  readonly observed: ValidatedObserveInput[]
  /** Every call of `audience.send` and `sessions.activity`, in order. */
  readonly audienceCalls: (AudienceInput | ActivityInput)[]
  readonly closed: boolean
  /**
   * Resolves once no turn runs in `session` (at once when none does): a test that ended a turn from
   * outside (a client that left) waits for it here instead of polling.
   */
  idle(session: string): Promise<void>
}

interface RunningTurn {
  controller: AbortController
  heard?: string
  reason?: 'new_input' | 'interrupt'
  ended: Promise<void>
}

const fakeProcessors: ProcessorInfo[] = [
  {
    id: 'persona',
    name: 'Persona',
    description: 'The character card.',
    priority: 10,
    enabled: true,
    isCore: true,
    configFields: [],
    settings: {},
  },
  {
    id: 'session-loader',
    name: 'History',
    description: 'Recent turns.',
    priority: 20,
    enabled: true,
    isCore: true,
    configFields: [],
    settings: {},
  },
]

export function createFakeCharpipe(options: CreateFakeCharpipeOptions): FakeCharpipe {
  let config = options.config
  const clock = options.clock ?? createSystemClock()
  let closed = false
  let turnCounter = 0
  const reloads: CharpipeConfig[] = []
  const histories = new Map<string, StoredMessage[]>()
  /** `records.keep` records by kind and id, kept in memory. */
  const records = new Map<string, string>()
  const running = new Map<string, RunningTurn>()
  const listeners = new Map<string, Set<(event: CharpipeEvent) => void>>()
  const memory = options.memory === false ? undefined : (options.memory ?? createFakeMemoryStore())

  /** The observers of the turn `event` belongs to (its first event names it). */
  const observersOf = (event: CharpipeEvent) => {
    const turn = { session: event.session, turn: event.turn, trigger: 'input' as const }
    return (options.observers ?? []).flatMap((observer) => observer(turn) ?? [])
  }
  const emit = (event: CharpipeEvent) => {
    for (const listener of listeners.get(event.type) ?? []) listener(event)
  }

  async function* runTurn(input: GenerateInput, signal?: AbortSignal): AsyncGenerator<CharpipeEvent> {
    const session = input.session ?? 'default'
    const previous = running.get(session)
    if (previous) {
      previous.reason = 'new_input'
      previous.controller.abort()
      await previous.ended
    }
    const turn = `turn-${++turnCounter}`
    let finish!: () => void
    const state: RunningTurn = {
      controller: new AbortController(),
      ended: new Promise((resolve) => (finish = resolve)),
    }
    running.set(session, state)
    const onOuterAbort = () => {
      state.reason ??= 'interrupt'
      state.controller.abort()
    }
    signal?.addEventListener('abort', onOuterAbort)
    const history = histories.get(session) ?? []
    histories.set(session, history)
    const turnConfig = config
    const emotion = turnConfig.character.emotions[0] ?? turnConfig.character.default_emotion
    const base = { session, turn }
    const timer = createTurnTimer({ now: () => clock.now() })
    let spoken = ''
    let display = ''
    let ended = false
    try {
      const errorCode = input.text.match(/^!error (\w+)/)?.[1] as CharpipeErrorCode | undefined
      if (errorCode) {
        yield { ...base, type: 'llm_error', code: errorCode, message: `fake ${errorCode}`, status: 502 }
        yield {
          ...base,
          type: 'llm_done',
          text: '',
          emotion: turnConfig.character.default_emotion,
          interrupted: false,
          timing: timer.report(),
        }
        ended = true
        return
      }
      const delay = input.text.startsWith('!slow') ? 20 : (options.chunkDelayMs ?? 0)
      const turnNumber = history.filter((message) => message.role === 'user').length + 1
      const sentences = [
        `[${turnConfig.llm.provider}] 你说的是「${input.text}」。`,
        `这是第${turnNumber}轮${input.text.startsWith('!slow') ? '，我会慢慢地说很多很多话' : ''}。`,
      ]
      yield { ...base, type: 'llm_emotion', emotion }
      // Chunk n is due n delays after the first: time the clock has moved on is not waited again.
      const firstChunkAt = clock.now()
      let chunkIndex = 0
      for (const [index, sentence] of sentences.entries()) {
        for (let offset = 0; offset < sentence.length; offset += 4) {
          const dueAt = firstChunkAt + delay * chunkIndex++
          if (delay > 0) await waitOnClockUntil(clock, dueAt, state.controller.signal)
          if (state.controller.signal.aborted) break
          const text = sentence.slice(offset, offset + 4)
          display += text
          timer.observe({ type: 'llm_chunk' })
          yield { ...base, type: 'llm_chunk', text }
        }
        if (state.controller.signal.aborted) break
        spoken += sentence
        timer.observe({ type: 'llm_sentence' })
        yield { ...base, type: 'llm_sentence', index, text: sentence, emotion }
      }
      const interrupted = state.controller.signal.aborted
      if (interrupted && state.reason === 'new_input') {
        yield {
          ...base,
          type: 'llm_error',
          code: 'interrupted_by_new_input',
          message: 'a new input interrupted this reply',
        }
      }
      const stored = interrupted ? (state.heard ?? spoken) : display
      history.push(
        {
          role: 'user',
          content: input.text,
          emotion: input.emotion,
          createdAt: clock.now(),
          turn,
          id: `${history.length + 1}`,
        },
        {
          role: 'assistant',
          content: stored,
          emotion,
          interrupted,
          createdAt: clock.now(),
          turn,
          id: `${history.length + 2}`,
        },
      )
      yield { ...base, type: 'llm_done', text: display, emotion, interrupted, timing: timer.report() }
      ended = true
    } finally {
      if (!ended) {
        history.push({
          role: 'assistant',
          content: state.heard ?? spoken,
          emotion,
          interrupted: true,
          createdAt: clock.now(),
          turn,
        })
      }
      signal?.removeEventListener('abort', onOuterAbort)
      if (running.get(session) === state) running.delete(session)
      finish()
    }
  }

  const observed: ValidatedObserveInput[] = []
  // The audience is recorded, not selected: the real selector is tested over the real engine.
  const audienceCalls: (AudienceInput | ActivityInput)[] = []
  const charpipe: FakeCharpipe = {
    audienceCalls,
    audience: {
      send(input) {
        audienceCalls.push(input)
        return { accepted: input.messages.length, dropped: [] }
      },
      queue: ({ session }) => ({ session, waiting: [], selected: [], dropped: [] }),
      moderate: () => false,
      stats: () => ({
        messagesIn: 0,
        selected: 0,
        dropped: {
          queue_full: 0,
          too_old: 0,
          duplicate: 0,
          blocked: 0,
          moderated: 0,
          speaker_rate: 0,
          loop_guard: 0,
        },
        idleTurns: 0,
        waits: [],
      }),
    },
    get reloads() {
      return reloads
    },
    observed,
    get closed() {
      return closed
    },
    async idle(session) {
      for (let turn = running.get(session); turn; turn = running.get(session)) await turn.ended
    },
    get config() {
      return config
    },
    memory,
    people: {
      // The real directory over the fake's memory store (no history store: words are not erased).
      of(input = {}) {
        if (!memory) throw new BadRequestError('long-term memory is disabled (memory.enabled: false)')
        return createPeopleDirectory({ memoryStore: memory, character: input.character })
      },
    },
    async *generate(input: GenerateInput, generateOptions?: GenerateOptions) {
      if (closed) throw new Error('closed')
      let observe: ((event: CharpipeEvent) => void)[] | undefined
      for await (const event of runTurn(input, generateOptions?.signal)) {
        emit(event)
        // Before the yield: a caller that stops at `llm_done` never resumes this loop.
        observe ??= observersOf(event)
        for (const observer of observe) observer(event)
        yield event
      }
    },
    async run(input: GenerateInput, { onEvent, ...runOptions }: RunOptions) {
      for await (const event of charpipe.generate(input, runOptions)) onEvent(event)
    },
    on<T extends CharpipeEventType>(type: T | string, listener: CharpipeListener<T>) {
      const set = listeners.get(type) ?? new Set()
      listeners.set(type, set)
      set.add(listener as (event: CharpipeEvent) => void)
      return () => set.delete(listener as (event: CharpipeEvent) => void)
    },
    off<T extends CharpipeEventType>(type: T | string, listener: CharpipeListener<T>) {
      listeners.get(type)?.delete(listener as (event: CharpipeEvent) => void)
    },
    async interrupt(session: string, interruptOptions?: InterruptOptions) {
      const state = running.get(session)
      if (!state) return
      state.heard = interruptOptions?.heard
      state.reason = 'interrupt'
      state.controller.abort()
      await state.ended
    },
    async reload(next: CharpipeConfig) {
      reloads.push(next)
      config = next
    },
    sessions: {
      // The fake serves its one character and greets no one.
      async open() {
        return {}
      },
      observe(input) {
        observed.push(validateObserveInput(input))
        return { id: `observed-${observed.length}` }
      },
      activity(input) {
        audienceCalls.push(input)
      },
      follow: () => () => {},
      // Kept as the real engine stores them: the words as the character's, the event as an event.
      say({ session = 'default', text, emotion }) {
        const turn = `say-${randomUUID()}`
        const stored = { role: 'assistant' as const, content: text, createdAt: Date.now(), turn }
        histories.set(session, [
          ...(histories.get(session) ?? []),
          { ...stored, ...(emotion ? { emotion } : {}) },
        ])
        return { turn }
      },
      async event({ session = 'default', text }) {
        const id = randomUUID()
        const stored = { role: 'event' as const, content: text, createdAt: Date.now(), turn: `event-${id}` }
        histories.set(session, [...(histories.get(session) ?? []), stored])
        return { id }
      },
      async history({ session, limit }) {
        const history = histories.get(session) ?? []
        return limit ? history.slice(-limit) : [...history]
      },
      async clear({ session }) {
        histories.delete(session)
      },
      active: () => [...running.keys()],
    },
    records: {
      async keep({ kind, id, value }) {
        const key = `${kind}/${id}`
        if (!records.has(key)) records.set(key, value)
      },
      async read({ kind, id }) {
        return records.get(`${kind}/${id}`)
      },
    },
    inspect: {
      async preview(input: GenerateInput): Promise<PreviewResult> {
        const history = histories.get(input.session ?? 'default') ?? []
        const messages = [
          {
            role: 'system' as const,
            content: config.character.persona || config.character.name,
            source: 'persona',
          },
          ...history.map((message) => ({
            role: modelRoleOf(message.role),
            content: message.content,
            source: 'history',
          })),
          { role: 'user' as const, content: input.text, source: 'input' },
        ].map((message) => ({ ...message, tokens: Math.ceil(message.content.length / 2) }))
        return {
          messages,
          total_tokens: messages.reduce((sum, message) => sum + message.tokens, 0),
          logs: [],
        }
      },
      characters: () => listCharacterIds(config),
      tools: () => ({ tools: [], servers: [] }),
      processors: () => fakeProcessors,
    },
    async close() {
      closed = true
      await Promise.all([...running.keys()].map((session) => charpipe.interrupt(session)))
      await memory?.close()
    },
  }
  return charpipe
}
