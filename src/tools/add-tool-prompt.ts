/**
 * For a model without function calling, the tools are described at the end of the first system
 * message (or in a new one at the start), in the format `parseToolCallText` reads back. `mustCall`
 * asks for a call (of any tool, or of the named one), the prompt's stand-in for a forced tool choice.
 * The words are the character's language (Chinese when none is given).
 */
import { type Language, readScaffoldingTexts } from '../shared/language/index.js'
import type { ChatMessage, ToolDefinition } from '../shared/messages.js'
import { renderToolPrompt } from './tool-call-text.js'

export function addToolPrompt(
  messages: ChatMessage[],
  definitions: readonly ToolDefinition[],
  mustCall?: true | string,
  language: Language = 'zh',
): ChatMessage[] {
  const requirement =
    mustCall === undefined
      ? ''
      : `\n${readScaffoldingTexts(language).mustCallTool(mustCall === true ? undefined : mustCall)}`
  const prompt = renderToolPrompt(definitions, language) + requirement
  const index = messages.findIndex((message) => message.role === 'system')
  if (index < 0) return [{ role: 'system', content: prompt, source: 'system' }, ...messages]
  const system = messages[index]!
  const content =
    typeof system.content === 'string'
      ? `${system.content}\n\n${prompt}`
      : [...system.content, { type: 'text' as const, text: `\n\n${prompt}` }]
  return messages.map((message, position) => (position === index ? { ...message, content } : message))
}
