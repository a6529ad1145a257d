/**
 * A card's `mes_example` as example messages, and back. The text is blocks opened by `<START>`, each
 * a dialogue of `{{user}}: …` and `{{char}}: …` lines (also the older `<USER>:` / `<BOT>:` and the
 * character's own name); a line without a speaker continues the message before it. The messages
 * keep `{{user}}` and `{{char}}` as written: the assembler expands them like every macro.
 */
import type { CharacterConfig } from '../../config/schema.js'

type ExampleMessage = CharacterConfig['injected_history'][number]

const blockMarker = /^\s*<START>\s*$/i

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
}

function speakerPattern(name: string): RegExp {
  const names = ['\\{\\{user\\}\\}', '<user>', '\\{\\{char\\}\\}', '<bot>']
  if (name.trim()) names.push(escapeRegExp(name.trim()))
  return new RegExp(`^\\s*(${names.join('|')})\\s*:\\s?(.*)$`, 'i')
}

function roleOf(speaker: string): ExampleMessage['role'] {
  const lower = speaker.toLowerCase()
  return lower === '{{user}}' || lower === '<user>' ? 'user' : 'assistant'
}

export function parseExampleDialogue(text: string, characterName: string): ExampleMessage[] {
  const speaker = speakerPattern(characterName)
  const messages: ExampleMessage[] = []
  let current: ExampleMessage | undefined
  const close = () => {
    if (current) {
      current.content = current.content.trim()
      if (current.content) messages.push(current)
    }
    current = undefined
  }
  for (const line of text.replace(/\r\n?/g, '\n').split('\n')) {
    if (blockMarker.test(line)) {
      close()
      continue
    }
    const match = speaker.exec(line)
    if (match) {
      close()
      current = { role: roleOf(match[1]!), content: match[2] ?? '' }
    } else if (current) {
      current.content += `\n${line}`
    } else if (line.trim()) {
      // Words before any speaker: the character's style, shown as the character speaking.
      current = { role: 'assistant', content: line }
    }
  }
  close()
  return messages
}

/** One `<START>` block of `{{user}}:` / `{{char}}:` lines. */
export function formatExampleDialogue(messages: readonly ExampleMessage[]): string {
  if (messages.length === 0) return ''
  const lines = messages.map(
    (message) => `${message.role === 'user' ? '{{user}}' : '{{char}}'}: ${message.content}`,
  )
  return `<START>\n${lines.join('\n')}`
}
