/**
 * Retrieved memories and knowledge as the closing sections of the system prompt (seed 000: "Top-3
 * 记忆片段拼接到 system prompt 末尾").
 */
import type { MemoryHit } from '../../memory/types.js'

function formatDay(time: number): string {
  const date = new Date(time)
  return Number.isNaN(date.getTime()) ? '' : date.toISOString().slice(0, 10)
}

/**
 * A remembered turn is stored with its speakers written in (`用户: 周末去爬山吗\n小助手: 好呀`), and
 * its `speaker` names the first of them: the label is added only when the text does not already
 * start with it, so each line carries one speaker label.
 */
function labelSpeaker(text: string, speaker: string | undefined): string {
  if (!speaker) return text
  const trimmed = text.trimStart()
  for (const separator of [':', '：']) if (trimmed.startsWith(`${speaker}${separator}`)) return text
  return `${speaker}: ${text}`
}

export function formatMemories(hits: readonly MemoryHit[], header: string): string | undefined {
  const memories = hits.filter((hit) => hit.kind === 'memory')
  if (memories.length === 0) return undefined
  const lines = memories.map((hit) => {
    const day = formatDay(hit.time)
    return `- ${day ? `(${day}) ` : ''}${labelSpeaker(hit.text, hit.speaker)}`
  })
  return `${header}\n${lines.join('\n')}`
}

export function formatKnowledge(hits: readonly MemoryHit[], header: string): string | undefined {
  const chunks = hits.filter((hit) => hit.kind === 'knowledge')
  if (chunks.length === 0) return undefined
  const lines = chunks.map((hit) => `- ${hit.sourceName ? `[${hit.sourceName}] ` : ''}${hit.text}`)
  return `${header}\n${lines.join('\n')}`
}
