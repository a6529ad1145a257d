/**
 * Retrieved memories and knowledge as the closing sections of the system prompt (seed 000: "Top-3
 * 记忆片段拼接到 system prompt 末尾").
 */
import type { MemoryHit } from '../../memory/types.js'

function formatDay(time: number): string {
  const date = new Date(time)
  return Number.isNaN(date.getTime()) ? '' : date.toISOString().slice(0, 10)
}

export function formatMemories(hits: readonly MemoryHit[], header: string): string | undefined {
  const memories = hits.filter((hit) => hit.kind === 'memory')
  if (memories.length === 0) return undefined
  const lines = memories.map((hit) => {
    const day = formatDay(hit.time)
    const who = hit.speaker ? `${hit.speaker}: ` : ''
    return `- ${day ? `(${day}) ` : ''}${who}${hit.text}`
  })
  return `${header}\n${lines.join('\n')}`
}

export function formatKnowledge(hits: readonly MemoryHit[], header: string): string | undefined {
  const chunks = hits.filter((hit) => hit.kind === 'knowledge')
  if (chunks.length === 0) return undefined
  const lines = chunks.map((hit) => `- ${hit.sourceName ? `[${hit.sourceName}] ` : ''}${hit.text}`)
  return `${header}\n${lines.join('\n')}`
}
