/**
 * Every session's audience in one place: messages in (each observed, then offered to the session's
 * selector), voice activity, who follows a session, the live queue for the page, and the counts for
 * `/metrics`. Followers get the events of the turns the server starts by itself (audience, idle)
 * and `audience_dropped`; the turns of inputs go to whoever sent the input, as always.
 *
 * Idle turns start only where a person is: audience lines, a person's voice activity, an input or
 * a line observed in the session make it live (with a follower to hear it, or by the lines
 * themselves), until the runner settles; a client following the session alone never does, so a
 * voice or avatar client that follows a room does not make the character talk into an empty room.
 *
 * Every idle turn is charged to someone: the origin whose lines were the session's last (the quiet
 * after them is what the character fills), else a follower that admits it; no one, no idle turn.
 * A session that only its messages made live stops being live once it has nothing more to start
 * by itself, and lets go of the origins that kept it so.
 */
import type { CharpipeEvent } from '../shared/events.js'
import { type AudienceHost, type AudienceRunner, createAudienceRunner } from './create-audience-runner.js'
import type { AudienceOrigin, WaitingMessage } from './create-audience-selector.js'
import { resolveAudiencePolicy } from './resolve-audience-policy.js'
import type {
  AudienceDropReason,
  AudienceKeeper,
  AudienceMessage,
  AudienceSpeaker,
  DroppedAudienceMessage,
  FollowOptions,
} from './types.js'

export interface AudienceDroppedEvent {
  type: 'audience_dropped'
  session: string
  ids: string[]
  reason: AudienceDropReason
}

/** What a follower of a session receives. */
export type SessionEvent = CharpipeEvent | AudienceDroppedEvent

export interface AudienceHubHost extends AudienceHost {
  /** Records a message as a line said in the session (as `observe` does). */
  observe(session: string, character: string | undefined, message: AudienceMessage): void
}

/** How a follower follows a session: see `FollowOptions` (liveness, reach, its own audience, idle admission). */
export type SubscribeOptions = FollowOptions

export interface ReceiveAudienceResult {
  accepted: number
  dropped: DroppedAudienceMessage[]
}

export interface AudienceQueueEntry {
  id: string
  speaker: AudienceSpeaker
  text: string
  priority?: number
  reasons?: string[]
  pinned?: boolean
  /** Milliseconds since it was said. */
  waited_ms?: number
  reason?: AudienceDropReason
}

export interface AudienceQueueSnapshot {
  session: string
  waiting: AudienceQueueEntry[]
  /** The latest messages taken for a reply, newest first. */
  selected: AudienceQueueEntry[]
  /** The latest dropped messages with their reason, newest first. */
  dropped: AudienceQueueEntry[]
}

export interface AudienceStats {
  messagesIn: number
  selected: number
  dropped: Record<AudienceDropReason, number>
  idleTurns: number
}

export interface AudienceHub {
  /** `origin`: who sent the messages (their ids are theirs alone), charged for each turn answering them. */
  receive(
    session: string,
    character: string | undefined,
    messages: AudienceMessage[],
    origin?: AudienceOrigin,
  ): ReceiveAudienceResult
  activity(session: string, speaking: boolean): void
  /** An input started a turn in the session: a person is there, and idle turns count from now. */
  noteInput(session: string, character: string | undefined): void
  /** A person's line was observed in the session (no reply asked): idle turns count from now. */
  notePerson(session: string): void
  /** Sends an event of a turn started for the session's listeners (`say`, `event`) to its followers. */
  broadcast(session: string, event: SessionEvent): void
  subscribe(session: string, listener: (event: SessionEvent) => void, options?: SubscribeOptions): () => void
  /** Tells whether a message of the session waits for a reply; undefined when nothing waits there. */
  isWaiting(session: string): ((line: { id: string }) => boolean) | undefined
  queue(session: string, character: string | undefined): AudienceQueueSnapshot
  /** Pins or drops a waiting message; false when it is not waiting. */
  moderate(session: string, character: string | undefined, id: string, action: 'pin' | 'drop'): boolean
  stats(): AudienceStats
  /** Waits measured since the last call, in milliseconds (for a metrics summary). */
  takeWaits(): number[]
  close(): void
}

interface Follower {
  listener: (event: SessionEvent) => void
  options: FollowOptions
}

interface SessionAudience {
  runner: AudienceRunner
  session: string
  /** Recently offered messages by id, for the page's lists (bounded). */
  recent: Map<string, AudienceMessage>
  selected: AudienceQueueEntry[]
  dropped: AudienceQueueEntry[]
  /** Live because messages arrived (not only followed), until the runner settles. */
  fed: boolean
  /** A person spoke or is present (activity, an input, a line), until the runner settles. */
  person: boolean
  /** The origin of the latest messages since the runner last settled: it pays the next idle turn. */
  lastOrigin?: AudienceOrigin
  /** The origins that keep the session live by their messages, by id, let go when it settles. */
  keepers: Map<string, AudienceKeeper>
}

const recentLimit = 50
const maxSessions = 10_000
const maxPendingWaits = 100_000

function pushRecent(list: AudienceQueueEntry[], entry: AudienceQueueEntry): void {
  list.unshift(entry)
  if (list.length > recentLimit) list.pop()
}

function keyOf(session: string, character: string | undefined): string {
  return character ? `${session}\u0000${character}` : session
}

export function createAudienceHub(host: AudienceHubHost): AudienceHub {
  const audiences = new Map<string, SessionAudience>()
  const followers = new Map<string, Set<Follower>>()
  const hasLiveFollower = (session: string) =>
    [...(followers.get(session) ?? [])].some((follower) => follower.options.live !== false)
  // Who pays for an idle turn: the origin of the session's latest messages (a library caller that
  // charges no one admits it for free), else a follower without an admitter or whose admitter says
  // yes. Nobody: the runner looks again after another `idle.after_ms`.
  const admitIdle = (audience: SessionAudience): boolean => {
    const last = audience.lastOrigin
    if (last && (!last.admitTurn || last.admitTurn().ok)) return true
    const following = [...(followers.get(audience.session) ?? [])]
    return following.some((follower) => !follower.options.admitIdle || follower.options.admitIdle())
  }
  const releaseKeepers = (audience: SessionAudience) => {
    const keepers = [...audience.keepers.values()]
    audience.keepers.clear()
    for (const keeper of keepers) keeper.released()
  }
  // The runner has nothing more to start: its keepers are let go, and a session live only by its
  // messages is no longer (until messages arrive again).
  const settle = (audience: SessionAudience) => {
    audience.lastOrigin = undefined
    releaseKeepers(audience)
    if (!audience.fed && !audience.person) return
    audience.fed = false
    audience.person = false
    refreshLive(audience)
  }
  // Live: lines arrived (their origin hears the reply), or a person is there and a follower hears it.
  function refreshLive(audience: SessionAudience): void {
    audience.runner.setLive(audience.fed || (audience.person && hasLiveFollower(audience.session)))
  }
  const speaking = new Map<string, boolean>()
  const stats: AudienceStats = {
    messagesIn: 0,
    selected: 0,
    dropped: {
      queue_full: 0,
      too_old: 0,
      duplicate: 0,
      blocked: 0,
      moderated: 0,
      speaker_rate: 0,
      loop_guard: 0,
    },
    idleTurns: 0,
  }
  let waits: number[] = []

  const deliver = (session: string, event: SessionEvent) => {
    for (const follower of [...(followers.get(session) ?? [])]) follower.listener(event)
  }

  /** The session as its runner sees it: its followers' audience settings and reach. */
  const sessionHost = (session: string): AudienceHubHost => ({
    ...host,
    readPolicy(character) {
      const policy = host.readPolicy(character)
      let resolved = policy
      for (const follower of followers.get(session) ?? [])
        if (follower.options.audience) resolved = resolveAudiencePolicy(resolved, follower.options.audience)
      return resolved
    },
    isReachable: () =>
      [...(followers.get(session) ?? [])].every((follower) => follower.options.reachable?.() ?? true),
  })

  const reportDropped = (audience: SessionAudience, dropped: DroppedAudienceMessage[]) => {
    const byReason = new Map<AudienceDropReason, string[]>()
    for (const { id, reason } of dropped) {
      stats.dropped[reason]++
      byReason.set(reason, [...(byReason.get(reason) ?? []), id])
      const message = audience.recent.get(id)
      pushRecent(audience.dropped, {
        id,
        reason,
        speaker: message?.speaker ?? { id: '' },
        text: message?.text ?? '',
      })
    }
    for (const [reason, ids] of byReason) {
      deliver(audience.session, { type: 'audience_dropped', session: audience.session, ids, reason })
    }
  }

  const describeWaiting = (entry: WaitingMessage): AudienceQueueEntry => ({
    id: entry.message.id,
    speaker: entry.message.speaker,
    text: entry.message.text,
    priority: entry.priority,
    reasons: entry.reasons,
    pinned: entry.pinned,
    waited_ms: host.clock.now() - entry.saidAt,
  })

  const audienceOf = (session: string, character: string | undefined): SessionAudience => {
    const key = keyOf(session, character)
    const found = audiences.get(key)
    if (found) return found
    const audience: SessionAudience = {
      session,
      recent: new Map(),
      selected: [],
      dropped: [],
      fed: false,
      person: false,
      keepers: new Map(),
      runner: createAudienceRunner(sessionHost(session), session, character, {
        dropped: (dropped) => reportDropped(audience, dropped),
        selected(batch) {
          stats.selected += batch.length
          for (const entry of batch) pushRecent(audience.selected, describeWaiting(entry))
        },
        idleTurn: () => stats.idleTurns++,
        admitIdle: () => admitIdle(audience),
        settled: () => settle(audience),
        waited(milliseconds) {
          if (waits.length < maxPendingWaits) waits.push(milliseconds)
        },
        event: (event) => deliver(session, event),
      }),
    }
    audiences.set(key, audience)
    if (speaking.get(session)) audience.runner.setSpeaking(true)
    forgetQuietSessions()
    return audience
  }

  /** Past the bound, the least recent sessions with nothing waiting or running are forgotten. */
  function forgetQuietSessions(): void {
    if (audiences.size <= maxSessions) return
    for (const [key, audience] of audiences) {
      if (audiences.size <= maxSessions) return
      if (audience.runner.running() || audience.runner.selector.hasWaiting()) continue
      audience.runner.close()
      releaseKeepers(audience)
      audiences.delete(key)
    }
  }

  const audiencesOf = (session: string) =>
    [...audiences.values()].filter((audience) => audience.session === session)
  const runnersOf = (session: string) => audiencesOf(session).map((each) => each.runner)

  /** A person is in the session: its followed default character, and every character there, may speak first. */
  const notePerson = (session: string) => {
    if (followers.has(session)) audienceOf(session, undefined)
    for (const audience of audiencesOf(session)) {
      audience.person = true
      refreshLive(audience)
    }
  }

  return {
    receive(session, character, messages, origin = {}) {
      const audience = audienceOf(session, character)
      // Re-inserted: the sessions fed most recently are the last to be forgotten.
      audiences.delete(keyOf(session, character))
      audiences.set(keyOf(session, character), audience)
      const dropped: DroppedAudienceMessage[] = []
      let accepted = 0
      for (const message of messages) {
        stats.messagesIn++
        audience.recent.set(message.id, message)
        if (audience.recent.size > recentLimit * 4)
          audience.recent.delete(audience.recent.keys().next().value!)
        const result = audience.runner.selector.offer(message, origin)
        if (result.observe) {
          accepted++
          host.observe(session, character, message)
        }
        dropped.push(...result.dropped)
      }
      if (dropped.length > 0) reportDropped(audience, dropped)
      audience.lastOrigin = origin
      const { keeper } = origin
      if (keeper && !audience.keepers.has(keeper.id)) {
        audience.keepers.set(keeper.id, keeper)
        keeper.kept()
      }
      audience.fed = true
      audience.person = true
      audience.runner.heard()
      refreshLive(audience)
      return { accepted, dropped }
    },
    activity(session, value) {
      speaking.set(session, value)
      if (!value) speaking.delete(session)
      // A person's voice is something heard: idle turns count again from zero once they stop.
      for (const runner of runnersOf(session)) runner.heard()
      notePerson(session)
      for (const runner of runnersOf(session)) runner.setSpeaking(value)
    },
    noteInput(session, character) {
      // Only a followed session, or one with an audience already, may be spoken to first.
      if (!followers.has(session) && !audiences.has(keyOf(session, character))) return
      const audience = audienceOf(session, character)
      audience.person = true
      audience.runner.heard()
      refreshLive(audience)
      audience.runner.schedule()
    },
    notePerson(session) {
      for (const runner of runnersOf(session)) runner.heard()
      notePerson(session)
    },
    broadcast: (session, event) => deliver(session, event),
    subscribe(session, listener, options = {}) {
      let set = followers.get(session)
      if (!set) {
        set = new Set()
        followers.set(session, set)
      }
      const follower: Follower = { listener, options }
      set.add(follower)
      // Followed, a session where a person is may be spoken to first (idle.after_ms); a follower
      // alone never starts that, nor does a connector's (`live: false`) until its audience speaks.
      if (options.live !== false) {
        audienceOf(session, undefined)
        for (const audience of audiencesOf(session)) refreshLive(audience)
      }
      return () => {
        set.delete(follower)
        if (set.size > 0) {
          // The followers left may not hear the session (a connector's `live: false`).
          for (const audience of audiencesOf(session)) refreshLive(audience)
          return
        }
        followers.delete(session)
        for (const [key, audience] of audiences) {
          if (audience.session !== session) continue
          refreshLive(audience)
          if (audience.fed) continue
          // Only followed, never fed, and now followed by no one: nothing of it is worth keeping
          // (a long run would otherwise keep one per session ever opened, up to maxSessions).
          if (audience.runner.running() || audience.runner.selector.hasWaiting()) continue
          audience.runner.close()
          releaseKeepers(audience)
          audiences.delete(key)
        }
      }
    },
    isWaiting(session) {
      const selectors = runnersOf(session)
        .map((runner) => runner.selector)
        .filter((selector) => selector.hasWaiting())
      if (selectors.length === 0) return undefined
      return (line) => selectors.some((selector) => selector.isWaiting(line.id))
    },
    queue(session, character) {
      const audience = audienceOf(session, character)
      const expired = audience.runner.selector.expire()
      if (expired.length > 0) reportDropped(audience, expired)
      return {
        session,
        waiting: audience.runner.selector.waiting().map(describeWaiting),
        selected: [...audience.selected],
        dropped: [...audience.dropped],
      }
    },
    moderate(session, character, id, action) {
      const audience = audiences.get(keyOf(session, character))
      if (!audience) return false
      if (action === 'pin') return audience.runner.selector.pin(id)
      if (!audience.runner.selector.remove(id)) return false
      reportDropped(audience, [{ id, reason: 'moderated' }])
      return true
    },
    stats: () => ({ ...stats, dropped: { ...stats.dropped } }),
    takeWaits() {
      const taken = waits
      waits = []
      return taken
    },
    close() {
      for (const audience of audiences.values()) {
        audience.runner.close()
        releaseKeepers(audience)
      }
      audiences.clear()
      followers.clear()
    },
  }
}
