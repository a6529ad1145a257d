/**
 * The ReAct loop (SPEC R1.4, seeds 002 and 004): call the model; when it asks for tools, run them,
 * give it the results and call it again, until it answers without a call. Tools go to the model
 * natively (`tools` / `tool-call` events) when `function_calling` is on, otherwise they are described
 * in the system prompt and calls are read from the model's JSON text.
 *
 * `max_tool_steps` bounds the rounds in which tools run; the call after the last round goes out
 * without tools so the model has to answer in words. A turn's tool choice (`required`, a named
 * tool) goes with the calls until a tool has run.
 */
import { describeImagePart } from '../../context/assets/describe-image-part.js'
import type {
  ChatProvider,
  ChatRequest,
  ProviderAnswer,
  ProviderEvent,
  ToolChoice,
  Usage,
} from '../../providers/types.js'
import { appendText } from '../../shared/append-text.js'
import { type Language, readScaffoldingTexts, resolveCharacterLanguage } from '../../shared/language/index.js'
import type { Logger } from '../../shared/logger.js'
import type { ChatMessage, ContentPart, ImagePart, ToolCall, ToolDefinition } from '../../shared/messages.js'
import { encodeToolResult } from '../../tools/encode-tool-result.js'
import {
  createToolCallTextDetector,
  parseToolCallText,
  renderToolResultText,
  type ToolCallTextDetector,
} from '../../tools/tool-call-text.js'
import type { ToolRegistry } from '../../tools/tool-registry.js'
import { isToolResultContent } from '../../tools/tool-result-content.js'
import { forEachUntilAborted, raceAbort } from '../abortable.js'
import type { ReplyReadPacer } from '../create-reply-read-pacer.js'
import type { EngineRuntime } from '../engine-runtime.js'

export type StepEvent =
  /** Text the character says (already free of reasoning and of tool-call JSON). */
  | { type: 'text-delta'; text: string }
  /** One model call ended: flush what was said in it. */
  | { type: 'step-end' }
  /** A tool the model called, as it starts running. */
  | { type: 'tool-call'; id: string; name: string; arguments: unknown }
  /** A call of a client's tool: not run here, the turn ends with it. */
  | { type: 'client-tool-call'; id: string; name: string; arguments: unknown }
  /** What the tool returned (its text: images go to the model only). */
  | { type: 'tool-result'; id: string; result: unknown }
  /** What one model call cost, when the provider reports it. */
  | { type: 'usage'; usage: Usage }
  /** Which provider and model answered one model call (a fallback's when it did). */
  | { type: 'answer'; answer: ProviderAnswer }

export interface RunModelStepsOptions {
  provider: ChatProvider
  messages: ChatMessage[]
  registry: ToolRegistry
  /**
   * The input's client's own tools (`clientTools`), offered beside the registry's (whose
   * tools keep their names). A step that calls one ends the loop: the call goes to the client.
   */
  clientTools?: readonly ToolDefinition[]
  /** The model must call a tool (any, or the named one): asked of each call until one is made. */
  toolChoice?: 'required' | { name: string }
  /** Native tool calls (true) or tools described in the prompt (false). */
  nativeTools: boolean
  /** The character's language: the words of tool results and notes described in the prompt. */
  language: Language
  maxToolSteps: number
  temperature?: number
  maxTokens?: number
  signal: AbortSignal
  session: string
  turn: string
  logger: Logger
  /**
   * What the model gets for the images of a tool result: `native` sends them as image parts (a
   * vision model), a function turns each into text (the image describer); absent, placeholders.
   */
  toolImages?: ToolImageHandling
  /** Called with the messages of each model call as it is sent. */
  onModelCall?: (messages: readonly ChatMessage[]) => void
  /**
   * Awaited before the tools of a step run: a turn prepared from an early transcript stops at its
   * first tool call until a final input adopts it, so a tool never runs for words not yet said.
   */
  beforeTools?: () => Promise<void>
  /** Receives every step event, in order, as it happens. */
  onEvent(event: StepEvent): void
  /** The share of the event loop the model's reads are visited in. @default visited at once */
  readPacer?: ReplyReadPacer
}

export type ToolImageHandling = 'native' | ((image: ImagePart, signal: AbortSignal) => Promise<string>)

/**
 * Images in tool results take the path of images in messages: native for a vision model, described
 * by `llm.vision_describer` otherwise, placeholders when there is neither.
 */
export function chooseToolImageHandling(
  runtime: EngineRuntime,
  logger: Logger,
): ToolImageHandling | undefined {
  if (runtime.capabilities.vision) return 'native'
  const describer = runtime.imageDescriber
  if (!describer) return undefined
  return (image, signal) =>
    describeImagePart(image, {
      describer,
      assets: runtime.config.assets,
      language: resolveCharacterLanguage(runtime.config.character),
      signal,
      warn: (message) => logger.warn({ part: 'tool result' }, message),
    })
}

interface StepResult {
  text: string
  calls: ToolCall[]
}

async function streamOneStep(
  options: RunModelStepsOptions,
  request: ChatRequest,
  toolsOffered: boolean,
  result: StepResult,
): Promise<void> {
  const detector: ToolCallTextDetector | undefined =
    toolsOffered && !options.nativeTools ? createToolCallTextDetector() : undefined
  options.onModelCall?.(request.messages)
  // A provider that does not say who answered (one without fallbacks) answered itself.
  let answered = false
  const stream = options.provider.streamChat(request, {
    signal: options.signal,
    onAnswer(answer) {
      answered = true
      options.onEvent({ type: 'answer', answer })
    },
  })
  const visit = (event: ProviderEvent) => {
    if (!answered) {
      answered = true
      const { name, model } = options.provider
      options.onEvent({ type: 'answer', answer: { provider: name, model: request.model ?? model } })
    }
    if (event.type === 'text-delta') {
      result.text = appendText(result.text, event.text)
      // Without a detector the provider's event is the step event (same shape): one object less a chunk.
      if (!detector) {
        if (event.text) options.onEvent(event)
      } else {
        const released = detector.push(event.text)
        if (released) options.onEvent({ type: 'text-delta', text: released })
      }
    } else if (event.type === 'tool-call') {
      if (toolsOffered && options.nativeTools) {
        result.calls.push({ id: event.id, name: event.name, arguments: event.arguments })
      } else {
        options.logger.warn({ tool: event.name }, 'the model called a tool that was not offered; ignored')
      }
    } else if (event.type === 'usage') {
      options.onEvent({ type: 'usage', usage: event.usage })
    }
    // Reasoning never reaches speech; finish carries nothing the reply needs.
  }
  await forEachUntilAborted(stream, options.signal, visit, { pacer: options.readPacer })
  if (!detector || detector.state === 'text') return
  const held = detector.heldText
  const calls = parseToolCallText(held)
  if (calls) {
    result.calls.push(...calls)
  } else if (held) {
    if (detector.state === 'call')
      options.logger.warn('the model wrote a tool call that does not parse; spoken as text')
    options.onEvent({ type: 'text-delta', text: held })
  }
}

/** A tool result as the model takes it: its text, and the images that go natively. */
async function prepareToolResult(
  options: RunModelStepsOptions,
  result: unknown,
  counter: { images: number },
): Promise<{ value: unknown; text?: string; images: ImagePart[] }> {
  if (!isToolResultContent(result)) return { value: result, images: [] }
  const handling = options.toolImages
  if (!handling) return { value: result.toJSON(), text: result.toJSON(), images: [] }
  const lines: string[] = []
  const images: ImagePart[] = []
  for (const part of result.parts) {
    if (part.type === 'text') lines.push(part.text)
    else if (handling === 'native') {
      images.push(part)
      lines.push(`[image ${++counter.images}: ${part.mediaType ?? 'image'}]`)
    } else lines.push(await handling(part, options.signal))
  }
  const text = lines.join('\n')
  return { value: text, text, images }
}

async function appendToolMessages(
  options: RunModelStepsOptions,
  messages: ChatMessage[],
  step: StepResult,
  results: { call: ToolCall; result: unknown }[],
  lastRound: boolean,
): Promise<void> {
  const prepared = []
  // Images are numbered across the round, so the model can tell them apart wherever they go.
  const counter = { images: 0 }
  for (const { call, result } of results)
    prepared.push({ call, ...(await prepareToolResult(options, result, counter)) })
  if (options.nativeTools) {
    messages.push({ role: 'assistant', content: step.text, toolCalls: step.calls, source: 'tool' })
    for (const { call, value, text, images } of prepared) {
      // Text goes as it is (an MCP tool's JSON text is not encoded a second time); other results as JSON.
      const content: string | ContentPart[] =
        images.length > 0
          ? [{ type: 'text', text: text ?? '' }, ...images]
          : (text ?? encodeToolResult(value))
      messages.push({ role: 'tool', content, toolCallId: call.id, source: 'tool' })
    }
    return
  }
  messages.push({ role: 'assistant', content: step.text, source: 'tool' })
  const lines = prepared.map(({ call, value }) => renderToolResultText(call, value, options.language))
  if (lastRound) lines.push(readScaffoldingTexts(options.language).toolRoundsUsedUp)
  const images = prepared.flatMap((item) => item.images)
  const text = lines.join('\n')
  messages.push({
    role: 'user',
    content: images.length > 0 ? [{ type: 'text', text }, ...images] : text,
    source: 'tool',
  })
}

/** Hands the step's calls of client tools to the client (true), or finds none (false). */
function handOverClientCalls(
  options: RunModelStepsOptions,
  calls: readonly ToolCall[],
  clientNames: ReadonlySet<string>,
): boolean {
  const clientCalls = calls.filter((call) => clientNames.has(call.name))
  if (clientCalls.length === 0) return false
  // The client answers its calls with the next input; the server's own would have no round to go in.
  if (clientCalls.length < calls.length)
    options.logger.warn('calls of server tools beside calls of client tools are left out')
  for (const call of clientCalls)
    options.onEvent({ type: 'client-tool-call', id: call.id, name: call.name, arguments: call.arguments })
  return true
}

/** The tool choice the model can be asked for: a named tool only when it is offered. */
function selectToolChoice(
  choice: RunModelStepsOptions['toolChoice'],
  definitions: readonly ToolDefinition[],
  logger: Logger,
): ToolChoice | undefined {
  if (choice === undefined || choice === 'required') return choice
  if (definitions.some((definition) => definition.name === choice.name)) return choice
  logger.warn({ tool: choice.name }, 'the tool choice names a tool that is not offered; left out')
  return undefined
}

/**
 * Runs the model calls of one turn, handing each event to `options.onEvent` as it happens (a
 * callback rather than a generator: this is the per-chunk path, and every generator layer costs
 * promises and ticks per chunk). Resolves when the model answered without a tool call.
 */
export async function runModelSteps(options: RunModelStepsOptions): Promise<void> {
  const messages = [...options.messages]
  const serverDefinitions = options.registry.definitions()
  const serverNames = new Set(serverDefinitions.map((definition) => definition.name))
  const clientDefinitions = (options.clientTools ?? []).filter((tool) => !serverNames.has(tool.name))
  const clientNames = new Set(clientDefinitions.map((definition) => definition.name))
  const definitions = [...serverDefinitions, ...clientDefinitions]
  // Forced only until a tool has run: after its result the model answers in words.
  let toolChoice = selectToolChoice(options.toolChoice, definitions, options.logger)
  for (let round = 0; ; round++) {
    const toolsOffered = definitions.length > 0 && round < options.maxToolSteps
    const request: ChatRequest = {
      messages,
      temperature: options.temperature,
      maxTokens: options.maxTokens,
      ...(toolsOffered && options.nativeTools ? { tools: definitions } : {}),
      ...(toolsOffered && options.nativeTools && toolChoice ? { toolChoice } : {}),
    }
    const step: StepResult = { text: '', calls: [] }
    await streamOneStep(options, request, toolsOffered, step)
    options.onEvent({ type: 'step-end' })
    if (step.calls.length === 0) return
    if (handOverClientCalls(options, step.calls, clientNames)) return

    toolChoice = undefined
    if (options.beforeTools) await raceAbort(options.beforeTools(), options.signal)
    const results: { call: ToolCall; result: unknown }[] = []
    for (const call of step.calls) {
      options.onEvent({ type: 'tool-call', id: call.id, name: call.name, arguments: call.arguments })
      const run = await raceAbort(
        options.registry.run(call, { signal: options.signal, session: options.session, turn: options.turn }),
        options.signal,
      )
      if (run.isError) options.logger.warn({ tool: call.name, result: run.result }, 'a tool failed')
      results.push({ call, result: run.result })
      // Events carry a result's text; its images go to the model only.
      const shown = isToolResultContent(run.result) ? run.result.toJSON() : run.result
      options.onEvent({ type: 'tool-result', id: call.id, result: shown })
    }
    await raceAbort(
      appendToolMessages(options, messages, step, results, round + 1 >= options.maxToolSteps),
      options.signal,
    )
  }
}
