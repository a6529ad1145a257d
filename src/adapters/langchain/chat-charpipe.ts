/**
 * `ChatCharpipe`: charpipe's provider layer as a LangChain.js chat model, for agent frameworks built
 * on `BaseChatModel` (seed 004). It takes the `llm` block of config.yaml, validated by the same
 * schema and built by the same provider factory, so the registry, retries, fallbacks and timeouts are
 * the ones the server uses. `invoke` goes through the provider's `chat()`, `stream` through
 * `streamChat()` chunk by chunk. With `function_calling: false` the bound tools are described in the
 * system prompt and the JSON call the model writes comes back as proper `tool_calls`, exactly as in
 * charpipe's own tool loop.
 */
import { randomUUID } from 'node:crypto'
import type { CallbackManagerForLLMRun } from '@langchain/core/callbacks/manager'
import type { BaseLanguageModelInput } from '@langchain/core/language_models/base'
import {
  BaseChatModel,
  type BaseChatModelCallOptions,
  type BaseChatModelParams,
  type BindToolsInput,
  type LangSmithParams,
} from '@langchain/core/language_models/chat_models'
import { AIMessageChunk, type AIMessageChunkFields, type BaseMessage } from '@langchain/core/messages'
import { ChatGenerationChunk, type ChatResult as LangChainChatResult } from '@langchain/core/outputs'
import type { Runnable } from '@langchain/core/runnables'
import type { z } from 'zod'
import { parseConfig } from '../../characters/load-config.js'
import type { llmSchema } from '../../config/schema.js'
import type { ChatResult } from '../../providers/collect-chat-result.js'
import { createProviderFromConfig } from '../../providers/create-provider-from-config.js'
import type { ResilientProvider } from '../../providers/create-resilient-provider.js'
import type { ChatRequest, FinishReason, ToolChoice } from '../../providers/types.js'
import { BadRequestError } from '../../shared/errors.js'
import { detectTextLanguage, type Language, type LanguageSetting } from '../../shared/language/index.js'
import type { ToolCall } from '../../shared/messages.js'
import { addToolPrompt } from '../../tools/add-tool-prompt.js'
import { createToolCallTextDetector, parseToolCallText } from '../../tools/tool-call-text.js'
import {
  convertChatResultToAIMessageChunk,
  convertFromLangChainMessages,
  convertUsageToLangChain,
} from './convert-langchain-messages.js'
import { convertToToolDefinitions } from './convert-langchain-tools.js'

/** The `llm` block of config.yaml, as written there (every field optional). */
export type LlmConfigInput = z.input<typeof llmSchema>
type LlmConfig = z.infer<typeof llmSchema>

export interface ChatCharpipeCallOptions extends BaseChatModelCallOptions {
  /** Tools offered to the model (what `bindTools` sets). */
  tools?: BindToolsInput[]
}

export interface ChatCharpipeFields extends BaseChatModelParams {
  /**
   * The `llm` block of config.yaml: provider, model, base_url, api_key (read `process.env` yourself:
   * `${ENV}` is only expanded in a config file's text),
   * temperature, max_tokens, timeouts, max_retries, fallbacks, function_calling.
   * @default the builtin mock provider
   * @example new ChatCharpipe({ llm: { provider: 'deepseek', api_key: process.env.DEEPSEEK_API_KEY } })
   */
  llm?: LlmConfigInput
  /**
   * The language of the words charpipe adds for a model without function calling (the tool prompt,
   * tool results): `zh`, `en`, or `auto`, read from the system messages (the user's when there are
   * none), Chinese when they say nothing.
   * @default 'auto'
   */
  language?: LanguageSetting
}

interface PreparedRequest {
  request: ChatRequest
  /** Tools are described in the prompt, so calls arrive as JSON text. */
  toolsInText: boolean
}

/** LangChain's `tool_choice` as the provider's; undefined: no tools are offered (`none`). */
function readToolChoice(options: ChatCharpipeCallOptions, names: string[]): ToolChoice | undefined {
  const choice = options.tool_choice
  if (choice === undefined || choice === 'auto') return 'auto'
  if (choice === 'none') return undefined
  if (choice === 'any' || choice === 'required') return 'required'
  const name =
    typeof choice === 'string' ? choice : (choice as { function?: { name?: unknown } }).function?.name
  if (typeof name === 'string' && names.includes(name)) return { name }
  throw new BadRequestError(
    `tool_choice ${JSON.stringify(choice)} is not supported: use auto, none, any, required or the name of a bound tool (${names.join(', ') || 'none bound'})`,
  )
}

/** A call read from text has no id the model could keep; each gets one of its own. */
function withFreshIds(calls: ToolCall[]): ToolCall[] {
  return calls.map((call) => ({ ...call, id: `call_${randomUUID().replaceAll('-', '').slice(0, 24)}` }))
}

function readToolCallsFromText(result: ChatResult): ChatResult {
  const calls = parseToolCallText(result.text)
  if (!calls) return result
  return {
    ...result,
    text: '',
    toolCalls: [...result.toolCalls, ...withFreshIds(calls)],
    finishReason: 'tool-calls',
  }
}

function toolCallChunk(call: ToolCall, index: number, rawArguments?: string): ChatGenerationChunk {
  const args = rawArguments || JSON.stringify(call.arguments ?? {})
  return new ChatGenerationChunk({
    text: '',
    message: new AIMessageChunk({
      content: '',
      tool_call_chunks: [{ id: call.id, name: call.name, args, index, type: 'tool_call_chunk' }],
    }),
  })
}

function readMessageText(message: BaseMessage): string {
  if (typeof message.content === 'string') return message.content
  return message.content.map((block) => (block.type === 'text' ? String(block.text ?? '') : '')).join('\n')
}

/** `auto`: the language of the system messages, else of the user's, else Chinese. */
function detectMessagesLanguage(messages: readonly BaseMessage[]): Language {
  const textOf = (types: string[]) =>
    messages
      .filter((message) => types.includes(message.type))
      .map(readMessageText)
      .join('\n')
  return detectTextLanguage(textOf(['system', 'developer'])) ?? detectTextLanguage(textOf(['human'])) ?? 'zh'
}

function messageChunk(fields: AIMessageChunkFields, text = ''): ChatGenerationChunk {
  return new ChatGenerationChunk({ text, message: new AIMessageChunk(fields) })
}

export class ChatCharpipe extends BaseChatModel<ChatCharpipeCallOptions, AIMessageChunk> {
  static override lc_name(): string {
    return 'ChatCharpipe'
  }

  readonly #config: LlmConfig
  readonly #provider: ResilientProvider
  readonly #language: LanguageSetting

  constructor(fields: ChatCharpipeFields = {}) {
    // The llm block (with its key) stays out of `lc_kwargs`, which tracing may serialise.
    const { llm, language, ...base } = fields
    super(base)
    this.#language = language ?? 'auto'
    const { config } = parseConfig({ llm: llm ?? {} }, { source: 'ChatCharpipe llm' })
    this.#config = config.llm
    this.#provider = createProviderFromConfig(config)
  }

  /** The model the primary provider calls. */
  get model(): string {
    return this.#provider.model
  }

  _llmType(): string {
    return 'charpipe'
  }

  override invocationParams(): Record<string, unknown> {
    return {
      provider: this.#config.provider,
      model: this.model,
      temperature: this.#config.temperature,
      max_tokens: this.#config.max_tokens,
      function_calling: this.#config.function_calling,
    }
  }

  override getLsParams(options: this['ParsedCallOptions']): LangSmithParams {
    return {
      ...super.getLsParams(options),
      ls_provider: this.#config.provider,
      ls_model_name: this.model,
      ls_temperature: this.#config.temperature,
      ls_max_tokens: this.#config.max_tokens,
    }
  }

  override bindTools(
    tools: BindToolsInput[],
    kwargs?: Partial<ChatCharpipeCallOptions>,
  ): Runnable<BaseLanguageModelInput, AIMessageChunk, ChatCharpipeCallOptions> {
    convertToToolDefinitions(tools) // a bad tool is refused here, not at the first call
    return this.withConfig({ ...kwargs, tools } as Partial<ChatCharpipeCallOptions>)
  }

  /** Releases the providers' kept-alive connections. */
  close(): void {
    this.#provider.close()
  }

  #prepare(messages: BaseMessage[], options: ChatCharpipeCallOptions): PreparedRequest {
    if (options.stop?.length) throw new BadRequestError('stop sequences are not supported by ChatCharpipe')
    const bound = convertToToolDefinitions(options.tools)
    const toolChoice = readToolChoice(
      options,
      bound.map((definition) => definition.name),
    )
    const definitions = toolChoice ? bound : []
    const nativeTools = this.#config.function_calling
    const language = this.#language === 'auto' ? detectMessagesLanguage(messages) : this.#language
    const converted = convertFromLangChainMessages(messages, { nativeTools, language })
    const toolsInText = !nativeTools && definitions.length > 0
    const mustCall =
      toolChoice === 'required' ? true : typeof toolChoice === 'object' ? toolChoice.name : undefined
    const request: ChatRequest = {
      messages: toolsInText ? addToolPrompt(converted, definitions, mustCall, language) : converted,
      temperature: this.#config.temperature,
      maxTokens: this.#config.max_tokens,
      ...(nativeTools && definitions.length > 0
        ? { tools: definitions, ...(toolChoice !== 'auto' ? { toolChoice } : {}) }
        : {}),
    }
    return { request, toolsInText }
  }

  async _generate(messages: BaseMessage[], options: this['ParsedCallOptions']): Promise<LangChainChatResult> {
    const { request, toolsInText } = this.#prepare(messages, options)
    const collected = await this.#provider.chat(request, { signal: options.signal })
    const result = toolsInText ? readToolCallsFromText(collected) : collected
    const message = convertChatResultToAIMessageChunk(result, this.model)
    const usage = message.usage_metadata
    return {
      generations: [{ text: result.text, message }],
      llmOutput: usage
        ? {
            tokenUsage: {
              promptTokens: usage.input_tokens,
              completionTokens: usage.output_tokens,
              totalTokens: usage.total_tokens,
            },
          }
        : {},
    }
  }

  override async *_streamResponseChunks(
    messages: BaseMessage[],
    options: this['ParsedCallOptions'],
    runManager?: CallbackManagerForLLMRun,
  ): AsyncGenerator<ChatGenerationChunk> {
    const { request, toolsInText } = this.#prepare(messages, options)
    // Only a prefix that could still become a JSON call is held back; other text streams at once.
    const detector = toolsInText ? createToolCallTextDetector() : undefined
    let callIndex = 0
    let finishReason: FinishReason | undefined
    const textChunk = async (text: string) => {
      const chunk = messageChunk({ content: text }, text)
      await runManager?.handleLLMNewToken(text, undefined, undefined, undefined, undefined, { chunk })
      return chunk
    }
    for await (const event of this.#provider.streamChat(request, { signal: options.signal })) {
      if (event.type === 'text-delta') {
        const released = detector ? detector.push(event.text) : event.text
        if (released) yield await textChunk(released)
      } else if (event.type === 'reasoning-delta') {
        yield messageChunk({ content: '', additional_kwargs: { reasoning_content: event.text } })
      } else if (event.type === 'tool-call') {
        yield toolCallChunk(event, callIndex++, event.rawArguments)
      } else if (event.type === 'usage') {
        yield messageChunk({ content: '', usage_metadata: convertUsageToLangChain(event.usage) })
      } else if (event.type === 'finish') {
        finishReason = event.reason
      }
    }
    if (detector && detector.state !== 'text' && detector.heldText) {
      const calls = parseToolCallText(detector.heldText)
      if (calls) {
        for (const call of withFreshIds(calls)) yield toolCallChunk(call, callIndex++)
        finishReason = 'tool-calls'
      } else {
        yield await textChunk(detector.heldText)
      }
    }
    // Last, so that a call read from the text can still change why the answer ended.
    if (finishReason) {
      yield messageChunk({
        content: '',
        response_metadata: { finish_reason: finishReason, model_name: this.model },
      })
    }
  }
}
