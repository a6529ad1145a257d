/**
 * Providers: a chat request in, provider events out (text, reasoning, complete tool calls, usage,
 * finish), for OpenAI-compatible APIs, Anthropic, the OpenClaw gateway and the builtin mock, behind
 * one retry and fallback loop.
 */
export type {
  ChatProviderSettings,
  MockProviderSettings,
  OpenClawSettings,
} from './chat-provider-settings.js'
export { type ChatResult, chat, collectChatResult } from './collect-chat-result.js'
export { convertToAnthropicMessages, convertToAnthropicTools } from './convert-to-anthropic-messages.js'
export { convertToOpenAIMessages, convertToOpenAITools } from './convert-to-openai-messages.js'
export { type CreateAudioTranscriberOptions, createAudioTranscriber } from './create-audio-transcriber.js'
export { createChatProvider } from './create-chat-provider.js'
export { type CreateImageDescriberOptions, createImageDescriber } from './create-image-describer.js'
export {
  type CreateImageDescriberFromConfigOptions,
  createImageDescriberFromConfig,
} from './create-image-describer-from-config.js'
export {
  type CreateProviderFromConfigOptions,
  createProviderFromConfig,
} from './create-provider-from-config.js'
export {
  type CreateResilientProviderOptions,
  createResilientProvider,
  type ResilientProvider,
} from './create-resilient-provider.js'
export type {
  ChatProvider,
  ChatRequest,
  FinishReason,
  ProviderEvent,
  StreamChatOptions,
  ToolChoice,
  Usage,
} from './types.js'
