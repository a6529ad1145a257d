/**
 * The audience's words: a message from chat (PROTOCOL.md "Additions (third wave)"), why one was
 * dropped, and the clock the selector reads time from (injected, so tests run minutes in seconds).
 */
import type { CharacterAudiencePolicy } from '../config/schema/audience.js'

export type AudienceRole = 'viewer' | 'member' | 'moderator' | 'owner'

export interface AudienceSpeaker {
  id: string
  name?: string
  /** @default 'viewer' */
  role?: AudienceRole
}

export interface AudienceGift {
  name: string
  value?: number
}

export interface AudienceMessage {
  /** The client's id for the message (a chat platform's message id). */
  id: string
  speaker: AudienceSpeaker
  text: string
  images?: string[]
  gift?: AudienceGift
  /** When it was said (ISO 8601); absent: when it arrived. */
  at?: string
}

/**
 * Why a message will not be answered. `moderated`: the session's owner dropped it from the queue.
 * `speaker_rate`: its speaker was answered `speaker_turns_per_minute` times in the last minute.
 * `loop_guard`: its speaker answers the character like a bot, and is in a cool-down.
 * `queue_full`, `too_old`, `speaker_rate` and `loop_guard` messages stay observed; `duplicate` and
 * `blocked` ones never reach the model.
 */
export type AudienceDropReason =
  | 'queue_full'
  | 'too_old'
  | 'duplicate'
  | 'blocked'
  | 'moderated'
  | 'speaker_rate'
  | 'loop_guard'

export interface DroppedAudienceMessage {
  id: string
  reason: AudienceDropReason
}

/**
 * What the origin of a message (a connector) knows of its speaker that the audience weights do not,
 * e.g. a Bilibili fan medal or user level.
 */
export interface AudienceStanding {
  /** Added to the message's priority. */
  bonus?: number
  /** Named beside the weights' reasons in the queue (e.g. `medal`). */
  reason?: string
  /** false: the message is observed (the model reads it with the next reply) but never answered. */
  answer?: boolean
}

/** Where time comes from. The system clock in production; a manual one in tests. */
export interface AudienceClock {
  now(): number
  setTimer(callback: () => void, delayMs: number): unknown
  clearTimer(timer: unknown): void
}

export type AudienceTrigger = 'input' | 'audience' | 'idle'

/** An origin's answer when a turn it caused is about to start: charged, or not now (and when to look again). */
export type AudienceTurnAdmission = { ok: true } | { ok: false; retryAfterMs?: number }

/**
 * Charges one turn to the origin of audience messages (a connector, a connection, an address).
 * Asked when the server is about to start a turn answering them, not when they arrive: a busy chat
 * costs its origin one turn per reply, however many lines it sent.
 */
export type AudienceTurnAdmitter = () => AudienceTurnAdmission

/**
 * An origin that keeps sessions live by sending them lines and follows none (an HTTP client), so it
 * can count the sessions it keeps live. A session holds it from its lines' arrival until the server
 * has nothing more to start there by itself: no line waits, no turn runs, no idle turn is to come.
 */
export interface AudienceKeeper {
  /** The origin: one session holds each origin once, however many times its lines came. */
  id: string
  /** The session is live on this origin's account from now. */
  kept(): void
  /** The session no longer is (called once per `kept`). */
  released(): void
}

/** How a follower of a session follows it (the options of `sessions.follow`). */
export interface FollowOptions {
  /**
   * Whether following alone makes the session live (its character may speak first after
   * `idle.after_ms`). A connector passes false: its session is live once audience messages arrive
   * there, not because the connector exists. @default true
   */
  live?: boolean
  /**
   * Whether a reply made now reaches this follower's audience (a connector: its link is up). While
   * any follower of the session says no, no idle turn starts there.
   */
  reachable?: () => boolean
  /** Audience settings for this session, each over the character's (a connector entry's `audience`). */
  audience?: CharacterAudiencePolicy
  /**
   * Asked before an idle turn this follow made possible: charge it to the follower's turn budget and
   * say whether it may start. A session whose followers all say no gets no idle turn then.
   */
  admitIdle?: () => boolean
}
