/**
 * One turn, once it holds its session's lane: context pipeline → provider (with the ReAct loop) →
 * reply parser → events. It never throws: the outcome says whether the turn completed, was
 * interrupted (and why) or failed, and the caller emits the closing `llm_error` / `llm_done`.
 */
import { describeImagePart } from '../context/assets/describe-image-part.js'
import { readRefusedAttachments } from '../context/refused-attachments.js'
import type { ContextPipeline, TurnInput } from '../context/types.js'
import type { Usage } from '../providers/types.js'
import { CharpipeError } from '../shared/errors.js'
import type { TurnUsage } from '../shared/events.js'
import { resolveCharacterLanguage } from '../shared/language/index.js'
import { type Logger, scrubSecrets } from '../shared/logger.js'
import type { ChatMessage } from '../shared/messages.js'
import { addToolPrompt } from '../tools/add-tool-prompt.js'
import type { ToolRegistry } from '../tools/tool-registry.js'
import { raceAbort } from './abortable.js'
import type { EngineParts } from './engine-parts.js'
import { createPipelineServices, type EngineRuntime } from './engine-runtime.js'
import { runModelSteps, type ToolImageHandling } from './run-model-steps.js'
import { createTurnReply, type EmitTurnEvent } from './turn-reply.js'

/** Why a turn was cut short; carried as the AbortSignal's reason. */
export type InterruptReason =
  | { kind: 'interrupt'; heard?: string }
  | { kind: 'new_input' }
  | { kind: 'signal' }
  | { kind: 'consumer' }
  | { kind: 'close' }
  /** A turn prepared from an early transcript that no final input adopted. */
  | { kind: 'preflight' }

export interface TurnOutcome {
  displayText: string
  emotion: string
  sentences: readonly string[]
  interrupted: boolean
  reason?: InterruptReason
  error?: CharpipeError
  /** Attachment references the pipeline refused (placeholders in the prompt); never stored. */
  refusedAttachments?: ReadonlySet<string>
  /** Summed over the turn's model calls; absent when no call reported usage. */
  usage?: TurnUsage
}

export interface RunTurnOptions {
  runtime: EngineRuntime
  pipeline: ContextPipeline
  parts: EngineParts
  registry: ToolRegistry
  input: TurnInput
  turn: string
  timestamp: number
  signal: AbortSignal
  emit: EmitTurnEvent
  logger: Logger
  onModelCall?: (messages: readonly ChatMessage[]) => void
  /** Awaited before tools run (a prepared turn runs them only once adopted). */
  beforeTools?: () => Promise<void>
}

export function toCharpipeError(error: unknown): CharpipeError {
  if (CharpipeError.isInstance(error)) return error
  const message = error instanceof Error ? error.message : String(error)
  return new CharpipeError('internal', scrubSecrets(message || 'unexpected failure'), { cause: error })
}

export function readInterruptReason(signal: AbortSignal): InterruptReason {
  const reason = signal.reason as InterruptReason | undefined
  return reason && typeof reason === 'object' && 'kind' in reason ? reason : { kind: 'signal' }
}

/** Adds one model call's usage to the turn's. */
export function addTurnUsage(total: TurnUsage | undefined, usage: Usage): TurnUsage {
  const cached = (total?.cached_tokens ?? 0) + (usage.cachedInputTokens ?? 0)
  return {
    prompt_tokens: (total?.prompt_tokens ?? 0) + usage.inputTokens,
    completion_tokens: (total?.completion_tokens ?? 0) + usage.outputTokens,
    ...(total?.cached_tokens !== undefined || usage.cachedInputTokens !== undefined
      ? { cached_tokens: cached }
      : {}),
  }
}

/**
 * Images in tool results take the path of images in messages: native for a vision model, described
 * by `llm.vision_describer` otherwise, placeholders when there is neither.
 */
function chooseToolImageHandling(runtime: EngineRuntime, logger: Logger): ToolImageHandling | undefined {
  if (runtime.capabilities.vision) return 'native'
  const describer = runtime.imageDescriber
  if (!describer) return undefined
  return (image, signal) =>
    describeImagePart(image, {
      describer,
      assets: runtime.config.assets,
      signal,
      warn: (message) => logger.warn({ part: 'tool result' }, message),
    })
}

export async function runTurn(options: RunTurnOptions): Promise<TurnOutcome> {
  const { runtime, signal, emit } = options
  const reply = createTurnReply(
    options.parts,
    runtime.parserOptions,
    emit,
    runtime.config.character.default_emotion,
  )
  let refusedAttachments: ReadonlySet<string> | undefined
  let usage: TurnUsage | undefined
  const outcome = (extra: Partial<TurnOutcome>): TurnOutcome => ({
    displayText: reply.displayText,
    emotion: reply.emotion,
    sentences: reply.sentences,
    interrupted: false,
    ...(refusedAttachments?.size ? { refusedAttachments } : {}),
    ...(usage ? { usage } : {}),
    ...extra,
  })
  try {
    const built = await raceAbort(
      options.pipeline.build({
        input: options.input,
        config: runtime.config,
        capabilities: runtime.capabilities,
        services: createPipelineServices(runtime, options.logger),
        signal,
        timestamp: options.timestamp,
      }),
      signal,
    )
    refusedAttachments = readRefusedAttachments(built.sharedData)
    // Tools of sources still connecting (MCP servers) are waited for, each within its own bound.
    await raceAbort(options.registry.ready(signal), signal)
    const nativeTools = runtime.capabilities.functionCalling
    const language = resolveCharacterLanguage(runtime.config.character)
    const messages =
      options.registry.size > 0 && !nativeTools
        ? addToolPrompt(built.messages, options.registry.definitions(), undefined, language)
        : built.messages
    await runModelSteps({
      provider: runtime.provider,
      messages,
      registry: options.registry,
      nativeTools,
      language,
      toolImages: chooseToolImageHandling(runtime, options.logger),
      maxToolSteps: runtime.config.llm.max_tool_steps,
      temperature: runtime.config.llm.temperature,
      maxTokens: runtime.config.llm.max_tokens,
      signal,
      session: options.input.session,
      turn: options.turn,
      logger: options.logger,
      ...(options.onModelCall ? { onModelCall: options.onModelCall } : {}),
      ...(options.beforeTools ? { beforeTools: options.beforeTools } : {}),
      onEvent(event) {
        if (event.type === 'text-delta') reply.push(event.text)
        else if (event.type === 'step-end') reply.endStep()
        else if (event.type === 'usage') usage = addTurnUsage(usage, event.usage)
        else emit(event)
      },
    })
    return outcome({})
  } catch (error) {
    if (signal.aborted) return outcome({ interrupted: true, reason: readInterruptReason(signal) })
    return outcome({ error: toCharpipeError(error) })
  }
}
