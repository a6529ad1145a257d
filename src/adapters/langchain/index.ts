/**
 * `charpipe/langchain`: charpipe and LangChain.js meeting both ways (SPEC R5.4, seed 004). This folder
 * owns `ChatCharpipe` (the provider layer as a LangChain `BaseChatModel`), the conversion of messages
 * and tool definitions between the two, and the tool bridges: `toCharpipeTool` turns a LangChain tool
 * into a charpipe `Tool` so a character can use it, `toLangChainTool` the reverse. `@langchain/core` is
 * an optional peer dependency that only this entry loads; the bare `charpipe` import never does.
 */
export {
  ChatCharpipe,
  type ChatCharpipeCallOptions,
  type ChatCharpipeFields,
  type LlmConfigInput,
} from './chat-charpipe.js'
export {
  type ConvertFromLangChainMessagesOptions,
  convertChatResultToAIMessageChunk,
  convertFromLangChainMessages,
  convertToLangChainMessages,
} from './convert-langchain-messages.js'
export { convertToToolDefinition, convertToToolDefinitions } from './convert-langchain-tools.js'
export { toCharpipeTool } from './to-charpipe-tool.js'
export { type ToLangChainToolOptions, toLangChainTool } from './to-langchain-tool.js'
