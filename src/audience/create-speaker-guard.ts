/**
 * Keeps one speaker from taking over the character: `audience.ignore_speakers` (observed, never
 * answered), `audience.speaker_turns_per_minute` (replies answering one speaker in any minute), and
 * the loop guard, which stops an exchange with another automated speaker (two bots in one group
 * would answer each other for ever).
 *
 * The loop guard's sign of a bot: the character answered the same speaker in consecutive replies,
 * and each time that speaker's line arrived sooner after the character's reply than a person reads
 * it and types an answer. After `loopGuard.quickRepliesInRow` such replies in a row the speaker's
 * lines are dropped (reason `loop_guard`, still observed) for `loopGuard.coolDownMs`. A person who
 * answers quickly now and then never trips it: one slow line, or one reply to someone else, starts
 * the count again. Time is read from the injected clock; nothing here holds a timer.
 */
import type { AudiencePolicy } from '../config/schema/audience.js'
import { createMinuteWindow, type MinuteWindow } from '../shared/create-minute-window.js'

/** The loop guard's thresholds (docs/audience.md). */
export const loopGuard = {
  /** A line arriving within this long after the reply that answered its speaker is "quick". */
  quickLineMs: 4000,
  /** Replies in a row to one speaker, each to a quick line of theirs, that trip the guard. */
  quickRepliesInRow: 3,
  /** How long a tripped speaker's lines are dropped with `loop_guard`. */
  coolDownMs: 10 * 60_000,
} as const

/** A line the character answered: who said it, and when it arrived. */
export interface AnsweredLine {
  speakerKey: string
  arrivedAt: number
}

export interface SpeakerGuard {
  /** Why a new line of this speaker is not to be answered (`undefined`: it may be). */
  check(
    speakerKey: string,
    speakerId: string,
    policy: AudiencePolicy,
  ): 'ignored' | 'loop_guard' | 'speaker_rate' | undefined
  /** A reply to this speaker is about to start: counted, or false when their minute is full. */
  takeTurn(speakerKey: string, policy: AudiencePolicy): boolean
  /**
   * A reply answering these lines has been said (not silence); returns the speakers the loop guard
   * stopped just now.
   */
  replied(lines: readonly AnsweredLine[]): string[]
  /** Whether the speaker is in a loop guard cool-down. */
  isCooling(speakerKey: string): boolean
}

export interface CreateSpeakerGuardOptions {
  now(): number
  /** Speakers whose minute is kept, most recent kept. */
  memoryLimit: number
}

export function createSpeakerGuard(options: CreateSpeakerGuardOptions): SpeakerGuard {
  const { now } = options
  const minutes = new Map<string, MinuteWindow>()
  /** The speakers of the last reply: when it ended, and their quick replies in a row so far. */
  let previous = new Map<string, { endedAt: number; inRow: number }>()
  const coolingUntil = new Map<string, number>()
  let ignoredSource: readonly string[] | undefined
  let ignored = new Set<string>()

  const isCooling = (speakerKey: string) => {
    const until = coolingUntil.get(speakerKey)
    if (until === undefined) return false
    if (now() < until) return true
    coolingUntil.delete(speakerKey)
    return false
  }

  const minuteOf = (speakerKey: string) => {
    let window = minutes.get(speakerKey)
    if (window) {
      // Re-inserted so the most recent speakers are the ones kept.
      minutes.delete(speakerKey)
    } else {
      window = createMinuteWindow({ now })
    }
    minutes.set(speakerKey, window)
    while (minutes.size > options.memoryLimit) minutes.delete(minutes.keys().next().value as string)
    return window
  }

  return {
    check(speakerKey, speakerId, policy) {
      if (policy.ignore_speakers !== ignoredSource) {
        ignoredSource = policy.ignore_speakers
        ignored = new Set(policy.ignore_speakers)
      }
      if (ignored.has(speakerId)) return 'ignored'
      if (isCooling(speakerKey)) return 'loop_guard'
      const window = minutes.get(speakerKey)
      if (window && window.size() >= policy.speaker_turns_per_minute) return 'speaker_rate'
      return undefined
    },
    takeTurn(speakerKey, policy) {
      return minuteOf(speakerKey).take(policy.speaker_turns_per_minute).ok
    },
    replied(lines) {
      const endedAt = now()
      const quickSpeakers = new Map<string, boolean>()
      for (const line of lines) {
        const before = previous.get(line.speakerKey)
        const sinceReply = before ? line.arrivedAt - before.endedAt : Number.NaN
        // Only a line that came after the last reply answers it; one said meanwhile does not count.
        const quick = sinceReply >= 0 && sinceReply <= loopGuard.quickLineMs
        quickSpeakers.set(line.speakerKey, quickSpeakers.get(line.speakerKey) === true || quick)
      }
      const next = new Map<string, { endedAt: number; inRow: number }>()
      const stopped: string[] = []
      for (const [speakerKey, quick] of quickSpeakers) {
        const inRow = quick ? (previous.get(speakerKey)?.inRow ?? 0) + 1 : 0
        if (inRow < loopGuard.quickRepliesInRow) {
          next.set(speakerKey, { endedAt, inRow })
          continue
        }
        coolingUntil.set(speakerKey, endedAt + loopGuard.coolDownMs)
        while (coolingUntil.size > options.memoryLimit) {
          coolingUntil.delete(coolingUntil.keys().next().value as string)
        }
        stopped.push(speakerKey)
      }
      // A speaker the reply did not answer is no longer answered "in a row".
      previous = next
      return stopped
    },
    isCooling,
  }
}
