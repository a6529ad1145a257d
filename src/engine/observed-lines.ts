/**
 * Lines said in a group session that need no reply, kept until the session's next input. A flood
 * (live-stream comments) must neither block a turn nor grow memory: each session keeps only the
 * newest lines within a character and line budget, and only so many sessions keep lines at all.
 */
import type { Speaker } from '../context/types.js'

export interface ObservedLine {
  id: string
  speaker: Speaker
  text: string
  images?: string[]
}

export interface ObservedLineBudget {
  maxChars: number
  maxLines: number
  maxSessions: number
}

export interface ObservedLines {
  add(session: string, line: ObservedLine, budget: ObservedLineBudget): void
  /** The session's pending lines, oldest first, without removing them (for a preview). */
  peek(session: string): ObservedLine[]
  /** The session's pending lines, oldest first; they are gone afterwards. */
  drain(session: string): ObservedLine[]
  /** Takes the lines with these ids out (audience messages about to be answered as the input). */
  remove(session: string, ids: ReadonlySet<string>): void
}

interface SessionLines {
  lines: ObservedLine[]
  chars: number
}

function sizeOf(line: ObservedLine): number {
  return line.text.length + line.speaker.id.length + (line.speaker.name?.length ?? 0)
}

export function createObservedLines(): ObservedLines {
  // A Map iterates in insertion order: re-inserting on each add keeps the least recent first.
  const sessions = new Map<string, SessionLines>()
  return {
    add(session, line, budget) {
      const entry = sessions.get(session) ?? { lines: [], chars: 0 }
      sessions.delete(session)
      entry.lines.push(line)
      entry.chars += sizeOf(line)
      // Oldest lines go first; a single line over the budget is dropped whole.
      while (
        entry.lines.length > 0 &&
        (entry.lines.length > budget.maxLines || entry.chars > budget.maxChars)
      ) {
        const dropped = entry.lines.shift() as ObservedLine
        entry.chars -= sizeOf(dropped)
      }
      if (entry.lines.length === 0) return
      sessions.set(session, entry)
      while (sessions.size > budget.maxSessions) {
        const oldest = sessions.keys().next().value as string
        sessions.delete(oldest)
      }
    },
    peek: (session) => [...(sessions.get(session)?.lines ?? [])],
    drain(session) {
      const lines = sessions.get(session)?.lines ?? []
      sessions.delete(session)
      return lines
    },
    remove(session, ids) {
      const entry = sessions.get(session)
      if (!entry) return
      entry.lines = entry.lines.filter((line) => {
        if (!ids.has(line.id)) return true
        entry.chars -= sizeOf(line)
        return false
      })
      if (entry.lines.length === 0) sessions.delete(session)
    },
  }
}
