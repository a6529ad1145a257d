/**
 * The soft checks of `character.injected_history` (seed 000): an odd number of messages or roles that
 * do not alternate are warned about, never refused, because a user may mean it. Warnings are message
 * keys with their values, so they are worded in the page's language when shown.
 */
import type { MessageParameters } from './i18n.js'
import type { MessageKey } from './page-messages.js'

export interface InjectedMessage {
  role: 'user' | 'assistant'
  content: string
}

export interface DialogueWarning {
  key: MessageKey
  parameters?: MessageParameters
}

export interface InjectedDialogueCheckResult {
  /** Warnings about the whole list. */
  warnings: DialogueWarning[]
  /** Row index → warning for that row. */
  rowWarnings: Map<number, DialogueWarning>
}

export function checkInjectedDialogue(messages: InjectedMessage[]): InjectedDialogueCheckResult {
  const warnings: DialogueWarning[] = []
  const rowWarnings = new Map<number, DialogueWarning>()
  if (messages.length % 2 === 1) {
    warnings.push({ key: 'dialogue.oddCount', parameters: { count: messages.length } })
  }
  if (messages.length > 0 && messages[0]?.role !== 'user') {
    rowWarnings.set(0, { key: 'dialogue.firstNotUser' })
  }
  let alternating = true
  messages.forEach((message, index) => {
    if (index > 0 && messages[index - 1]?.role === message.role) {
      alternating = false
      rowWarnings.set(index, { key: 'dialogue.sameRole', parameters: { role: message.role } })
    }
    if (message.content.trim() === '') rowWarnings.set(index, { key: 'dialogue.emptyContent' })
  })
  if (!alternating) warnings.push({ key: 'dialogue.notAlternating' })
  return { warnings, rowWarnings }
}
