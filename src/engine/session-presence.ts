/**
 * Group-chat fidelity: which characters are present in a session, and the lines each of them has
 * heard. A line said in a session is kept for every character present there (and, before any is, for
 * the first to come), so each character sees only what was said where it was present: one joining
 * later never reads what was said before, and one character's reply is a line the others heard.
 */
import type { CharpipeConfig } from '../config/schema.js'
import { laneKeyOf } from './lane-key.js'
import type { ObservedLine, ObservedLineBudget, ObservedLines } from './observed-lines.js'

export interface SessionPresence {
  /** A line said in the session, heard by every character present but `except` (its speaker). */
  say(session: string, line: ObservedLine, budget: ObservedLineBudget, except?: string): void
  /** The character (`''` for the default) takes part from now; it takes the lines kept for the first. */
  enter(session: string, character: string, budget: ObservedLineBudget): void
  /** Characters present in the session (`''` for the default). */
  present(session: string): string[]
  peek(session: string, character: string): ObservedLine[]
  /** The lines the character has heard since its last turn; those `keep` holds stay. */
  drain(session: string, character: string, keep?: (line: ObservedLine) => boolean): ObservedLine[]
  /** Takes lines out for every character of the session (audience messages about to be answered). */
  remove(session: string, ids: ReadonlySet<string>): void
}

/** The budget of observed lines `conversation.group` sets. */
export function lineBudgetOf(config: CharpipeConfig): ObservedLineBudget {
  const group = config.conversation.group
  return {
    maxChars: group.observed_max_chars,
    maxLines: group.observed_max_lines,
    maxSessions: group.observed_max_sessions,
  }
}

/** Sessions whose presence is remembered, most recent kept. */
const maxSessions = 100_000

function unclaimedKeyOf(session: string): string {
  return `${session}\u0000`
}

export function createSessionPresence(lines: ObservedLines): SessionPresence {
  const sessions = new Map<string, Set<string>>()
  const keysOf = (session: string) => [
    unclaimedKeyOf(session),
    ...[...(sessions.get(session) ?? [])].map((character) => laneKeyOf(session, character)),
  ]
  return {
    say(session, line, budget, except) {
      const present = sessions.get(session)
      if (!present || present.size === 0) {
        lines.add(unclaimedKeyOf(session), line, budget)
        return
      }
      for (const character of present) {
        if (character !== except) lines.add(laneKeyOf(session, character), line, budget)
      }
    },
    enter(session, character, budget) {
      let present = sessions.get(session)
      if (present?.has(character)) return
      if (!present) {
        present = new Set()
        sessions.set(session, present)
        if (sessions.size > maxSessions) sessions.delete(sessions.keys().next().value!)
      }
      present.add(character)
      for (const line of lines.drain(unclaimedKeyOf(session)))
        lines.add(laneKeyOf(session, character), line, budget)
    },
    present: (session) => [...(sessions.get(session) ?? [])],
    peek(session, character) {
      if (!sessions.get(session)?.has(character)) return lines.peek(unclaimedKeyOf(session))
      return lines.peek(laneKeyOf(session, character))
    },
    drain: (session, character, keep) => lines.drain(laneKeyOf(session, character), keep),
    remove(session, ids) {
      for (const key of keysOf(session)) lines.remove(key, ids)
    },
  }
}
