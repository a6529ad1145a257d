/**
 * The per-chunk path of a turn as one ordered list of stages. Every model call's stream goes through
 * them in this order, synchronously: a chunk in, the events it completes out, no promise per chunk.
 *
 *   1. step events     run-model-steps.ts: the provider's events of each model call, with reasoning
 *                      and tool-call text taken out                        → StepEvent
 *   2. reply parser    src/reply/ (one parser per model step, so one step's JSON envelope never
 *                      swallows the next): model text → display text, emotion, sentences for speech
 *                                                                          → ReplyEvent
 *   3. turn events     a reply event as the client sees it; sentence indexes run on across steps;
 *                      a step's tool call and result pass through          → TurnEvent
 *   4. emit            into the turn's event path (turn-event-path.ts: held until granted, closed
 *                      once, timed, shared, then to the bus and the caller)
 *   5. display rules   when the turn closes: the `output-display` regex rules over the whole display
 *                      text give `llm_done.text` (chunks go out as the model wrote them)
 *
 * Inside the engine events are named noun-first in kebab-case (`text-delta`, `step-end`,
 * `tool-call`, `display-delta`); the public snake_case names of PROTOCOL.md appear at stage 3 only.
 */
import type { CharpipeConfig } from '../../config/schema.js'
import type { ProviderAnswer, Usage } from '../../providers/types.js'
import type { ReplyEvent, ReplyParser, ReplyParserOptions } from '../../reply/types.js'
import type { TurnUsage } from '../../shared/events.js'
import type { EngineParts } from '../engine-parts.js'
import type { EmitTurnEvent, TurnEvent } from '../turn-event.js'
import type { StepEvent } from './run-model-steps.js'

/** Stage 2: the model's text of each step → reply events, and the display text so far. */
export interface ReplyStage {
  push(delta: string): ReplyEvent[]
  /** Ends the current model step: flushes its last sentence. */
  endStep(): ReplyEvent[]
  readonly displayText: string
  /** The parser's emotion while a step is open; undefined between steps. */
  readonly openEmotion: string | undefined
  /** The last step ended in silence and nothing was said before it. */
  readonly silent: boolean
}

const noEvents: ReplyEvent[] = []

function createReplyStage(
  parts: Pick<EngineParts, 'createReplyParser'>,
  options: ReplyParserOptions,
): ReplyStage {
  let parser: ReplyParser | undefined
  let finishedText = ''
  let lastStepSilent = false
  return {
    push(delta) {
      parser ??= parts.createReplyParser(options)
      return parser.push(delta)
    },
    endStep() {
      if (!parser) return noEvents
      const events = parser.end()
      lastStepSilent = events.some((event) => event.type === 'done' && event.silent === true)
      finishedText += parser.displayText
      parser = undefined
      return events
    },
    get displayText() {
      return finishedText + (parser?.displayText ?? '')
    },
    get openEmotion() {
      return parser?.emotion
    },
    get silent() {
      return lastStepSilent && !parser && finishedText === ''
    },
  }
}

/** Stage 3: a reply event → the turn event it is, if any; tracks the emotion and the sentences. */
export interface TurnEventStage {
  convert(event: ReplyEvent): TurnEvent | undefined
  readonly emotion: string
  readonly sentences: readonly string[]
  /** The turn's inner thoughts (one per model step that wrote one). */
  readonly thoughts: readonly string[]
}

export function createTurnEventStage(initialEmotion: string): TurnEventStage {
  let emotion = initialEmotion
  let emittedEmotion: string | undefined
  const sentences: string[] = []
  const thoughts: string[] = []
  return {
    convert(event) {
      if (event.type === 'display-delta')
        return event.text ? { type: 'llm_chunk', text: event.text } : undefined
      if (event.type === 'thought') {
        thoughts.push(event.text)
        return { type: 'llm_thought', text: event.text }
      }
      emotion = event.emotion
      if (event.type === 'emotion') {
        if (event.emotion === emittedEmotion) return undefined
        emittedEmotion = event.emotion
        return { type: 'llm_emotion', emotion: event.emotion }
      }
      if (event.type === 'sentence') {
        sentences.push(event.text)
        return { type: 'llm_sentence', index: sentences.length - 1, text: event.text, emotion: event.emotion }
      }
      return undefined
    },
    get emotion() {
      return emotion
    },
    get sentences() {
      return sentences
    },
    get thoughts() {
      return thoughts
    },
  }
}

/** Stage 5: the `output-display` regex rules over a reply's whole display text. */
export function applyDisplayRules(
  parts: Pick<EngineParts, 'applyDisplayRegexRules'>,
  displayText: string,
  config: CharpipeConfig,
): string {
  return parts.applyDisplayRegexRules(displayText, config)
}

/** Adds one model call's usage to the turn's. */
function addTurnUsage(total: TurnUsage | undefined, usage: Usage): TurnUsage {
  const cached = (total?.cached_tokens ?? 0) + (usage.cachedInputTokens ?? 0)
  return {
    prompt_tokens: (total?.prompt_tokens ?? 0) + usage.inputTokens,
    completion_tokens: (total?.completion_tokens ?? 0) + usage.outputTokens,
    ...(total?.cached_tokens !== undefined || usage.cachedInputTokens !== undefined
      ? { cached_tokens: cached }
      : {}),
  }
}

export interface CreateReplyStagesOptions {
  parts: Pick<EngineParts, 'createReplyParser'>
  parserOptions: ReplyParserOptions
  /** The character's `default_emotion`: the emotion until the model gives one. */
  defaultEmotion: string
  /** Stage 4. */
  emit: EmitTurnEvent
}

/** Stages 1 to 4 of one turn, and what they have seen so far. */
export interface ReplyStages {
  /** Takes one step event through the stages. */
  push(event: StepEvent): void
  readonly displayText: string
  readonly emotion: string
  readonly sentences: readonly string[]
  /** Summed over the turn's model calls; absent when no call reported usage. */
  readonly usage: TurnUsage | undefined
  /** The provider and model that answered the last model call. */
  readonly answer: ProviderAnswer | undefined
  /** The reply was `[silence]` (on a turn that allowed it) and nothing was said. */
  readonly silent: boolean
  /** The turn's inner thought (`character.thoughts`), its steps' thoughts one a line; absent: none. */
  readonly thought: string | undefined
}

export function createReplyStages(options: CreateReplyStagesOptions): ReplyStages {
  const { emit } = options
  const reply = createReplyStage(options.parts, options.parserOptions)
  const turnEvents = createTurnEventStage(options.parserOptions.defaultEmotion || options.defaultEmotion)
  let usage: TurnUsage | undefined
  let answer: ProviderAnswer | undefined
  const forward = (events: ReplyEvent[]) => {
    for (const event of events) {
      const turnEvent = turnEvents.convert(event)
      if (turnEvent) emit(turnEvent)
    }
  }
  return {
    push(event) {
      switch (event.type) {
        case 'text-delta':
          forward(reply.push(event.text))
          break
        case 'step-end':
          forward(reply.endStep())
          break
        case 'tool-call':
          emit({ type: 'tool_call', id: event.id, name: event.name, arguments: event.arguments })
          break
        case 'client-tool-call':
          emit({
            type: 'tool_call',
            id: event.id,
            name: event.name,
            arguments: event.arguments,
            client: true,
          })
          break
        case 'tool-result':
          emit({ type: 'tool_result', id: event.id, result: event.result })
          break
        case 'usage':
          usage = addTurnUsage(usage, event.usage)
          break
        case 'answer':
          answer = event.answer
          break
      }
    },
    get displayText() {
      return reply.displayText
    },
    get emotion() {
      return reply.openEmotion ?? turnEvents.emotion
    },
    get sentences() {
      return turnEvents.sentences
    },
    get usage() {
      return usage
    },
    get answer() {
      return answer
    },
    get silent() {
      return reply.silent
    },
    get thought() {
      return turnEvents.thoughts.length ? turnEvents.thoughts.join('\n') : undefined
    },
  }
}
