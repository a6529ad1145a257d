/**
 * The macro values of one turn, taken from the pipeline context. The session loader leaves the
 * time of the last stored message on `sharedData` for `{{idle_duration}}`.
 */
import { resolveCharacterLanguage, resolveUserName } from '../../shared/language/index.js'
import { messageText } from '../../shared/messages.js'
import type { PipelineContext } from '../types.js'
import type { MacroValues } from './expand-macros.js'

/** sharedData key: ms since the epoch of the newest stored message of the session. */
export const lastMessageAtKey = 'history.lastMessageAt'

export function createMacroValues(
  context: PipelineContext,
  options: { timeZone?: string } = {},
): MacroValues {
  const input = context.messages.findLast((message) => message.source === 'input')
  return {
    char: context.character.name,
    user: resolveUserName(context.character),
    language: resolveCharacterLanguage(context.character),
    timestamp: context.timestamp,
    lastMessageAt: context.sharedData.get(lastMessageAtKey) as number | undefined,
    lastUserMessage: input ? messageText(input) : context.input.text,
    scenario: context.character.scenario,
    timeZone: options.timeZone,
  }
}
