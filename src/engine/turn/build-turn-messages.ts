/**
 * The runner's context stage: the turn's input through the context pipeline (src/context/) into the
 * messages of its first model call; then the tools, described in the system prompt when the model
 * does not take them natively.
 */
import { readRecallOutcome } from '../../context/processors/memory-retriever.js'
import { readRefusedAttachments } from '../../context/refused-attachments.js'
import type { ContextPipeline, PipelineServices, TurnInput } from '../../context/types.js'
import { type Language, resolveCharacterLanguage } from '../../shared/language/index.js'
import type { Logger } from '../../shared/logger.js'
import { type ChatMessage, messageText, type ToolDefinition } from '../../shared/messages.js'
import { addToolPrompt } from '../../tools/add-tool-prompt.js'
import { renderToolResultText } from '../../tools/tool-call-text.js'
import type { ToolRegistry } from '../../tools/tool-registry.js'
import { raceAbort } from '../abortable.js'
import { createPipelineServices, type EngineRuntime } from '../engine-runtime.js'

export interface BuildTurnMessagesOptions {
  runtime: EngineRuntime
  pipeline: ContextPipeline
  input: TurnInput
  /** The turn's start (ms since the epoch), as the pipeline dates the input. */
  timestamp: number
  signal: AbortSignal
  logger: Logger
  /** The engine's clock: the recall budget (`memory.recall_timeout_ms`) is timed on it. */
  clock?: PipelineServices['clock']
}

export interface BuildTurnMessagesResult {
  messages: ChatMessage[]
  /** Attachment references the pipeline refused (placeholders in the prompt). */
  refusedAttachments: ReadonlySet<string>
  /** `timed_out` when recall missed its budget and the turn goes on without memories. */
  memory?: 'timed_out'
}

export async function buildTurnMessages(options: BuildTurnMessagesOptions): Promise<BuildTurnMessagesResult> {
  const { runtime, signal } = options
  const built = await raceAbort(
    options.pipeline.build({
      input: options.input,
      config: runtime.config,
      capabilities: runtime.capabilities,
      services: createPipelineServices(runtime, options.logger, options.clock),
      signal,
      timestamp: options.timestamp,
    }),
    signal,
  )
  const memory = readRecallOutcome(built.sharedData)
  return {
    messages: built.messages,
    refusedAttachments: readRefusedAttachments(built.sharedData),
    ...(memory ? { memory } : {}),
  }
}

export interface OfferToolsResult {
  messages: ChatMessage[]
  /** Native tool calls (true) or tools described in the prompt (false). */
  nativeTools: boolean
  /** The character's language: the words of tool results and notes described in the prompt. */
  language: Language
}

/**
 * How the tools reach the model: natively, or described in the system prompt of `messages`. The
 * input's client's own tools (`clientTools`) go with the registry's; for a model without native
 * calls the client's tool rounds become words (the result as a user message, as ours are), and the
 * turn's tool choice is a line of the prompt (natively it goes with the request).
 */
export function offerTools(
  messages: ChatMessage[],
  registry: ToolRegistry,
  runtime: EngineRuntime,
  clientTools: readonly ToolDefinition[] = [],
  toolChoice?: TurnInput['toolChoice'],
): OfferToolsResult {
  const nativeTools = runtime.capabilities.functionCalling
  const language = resolveCharacterLanguage(runtime.config.character)
  if (nativeTools) return { messages, nativeTools, language }
  const definitions = [...registry.definitions(), ...clientTools]
  const spoken = renderClientToolRounds(messages, language)
  return {
    messages:
      definitions.length > 0
        ? addToolPrompt(spoken, definitions, readMustCall(toolChoice), language)
        : spoken,
    nativeTools,
    language,
  }
}

/** The prompt's requirement of a tool choice: any tool (true) or the named one. */
function readMustCall(toolChoice: TurnInput['toolChoice']): true | string | undefined {
  if (toolChoice === undefined) return undefined
  return toolChoice === 'required' ? true : toolChoice.name
}

/** Tool calls and results of a client's conversation as words, for a model without a `tool` role. */
function renderClientToolRounds(messages: ChatMessage[], language: Language): ChatMessage[] {
  const names = new Map<string, string>()
  return messages.map((message) => {
    if (message.toolCalls) {
      for (const call of message.toolCalls) names.set(call.id, call.name)
      const { toolCalls: _calls, ...rest } = message
      return rest
    }
    if (message.role !== 'tool') return message
    const call = {
      id: message.toolCallId ?? '',
      name: names.get(message.toolCallId ?? '') ?? 'tool',
      arguments: {},
    }
    return {
      role: 'user',
      content: renderToolResultText(call, messageText(message), language),
      source: message.source,
    }
  })
}
