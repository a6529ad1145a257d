/**
 * `charpipe preview` for a person: each message under a heading with its role, where it came from
 * and its tokens, then the total and the processors' notes. `--json` prints the PreviewResult as is.
 */
import type { PreviewResult } from '../context/types.js'

function contentText(content: PreviewResult['messages'][number]['content']): string {
  if (typeof content === 'string') return content
  return content
    .map((part) =>
      part.type === 'text' ? part.text : `[${part.type}${'url' in part ? ` ${part.url}` : ''}]`,
    )
    .join('\n')
}

export function formatPreviewResult(result: PreviewResult): string {
  const blocks = result.messages.map(
    (message, index) =>
      `── ${index + 1}. ${message.role} (${message.source}, ${message.tokens} tokens) ──\n${contentText(message.content)}`,
  )
  blocks.push(`${result.messages.length} messages, ${result.total_tokens} tokens`)
  const notes = result.logs.map((log) => `  ${log.level.padEnd(5)} ${log.processorId}: ${log.message}`)
  if (notes.length > 0) blocks.push(`processor notes:\n${notes.join('\n')}`)
  return blocks.join('\n\n')
}
