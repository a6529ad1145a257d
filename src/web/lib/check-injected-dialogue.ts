/**
 * The soft checks of `character.injected_history` (seed 000): an odd number of messages or roles that
 * do not alternate are warned about, never refused, because a user may mean it.
 */
export interface InjectedMessage {
  role: 'user' | 'assistant'
  content: string
}

export interface InjectedDialogueCheckResult {
  /** Warnings about the whole list. */
  warnings: string[]
  /** Row index → warning for that row. */
  rowWarnings: Map<number, string>
}

export function checkInjectedDialogue(messages: InjectedMessage[]): InjectedDialogueCheckResult {
  const warnings: string[] = []
  const rowWarnings = new Map<number, string>()
  if (messages.length % 2 === 1) {
    warnings.push(`条数为奇数（${messages.length} 条）：示范对话通常是成对的 user/assistant (odd count)`)
  }
  if (messages.length > 0 && messages[0]?.role !== 'user') {
    rowWarnings.set(0, '第一条通常应为 user (the first message is usually the user)')
  }
  messages.forEach((message, index) => {
    if (index > 0 && messages[index - 1]?.role === message.role) {
      rowWarnings.set(index, `与上一条角色相同（${message.role}），角色未交替 (roles not alternating)`)
    }
    if (message.content.trim() === '') rowWarnings.set(index, '内容为空 (empty content)')
  })
  if ([...rowWarnings.values()].some((warning) => warning.includes('alternating'))) {
    warnings.push('角色未交替：user 与 assistant 应轮流出现 (roles not alternating)')
  }
  return { warnings, rowWarnings }
}
