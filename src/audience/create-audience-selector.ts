/**
 * One session's selector: every audience message is offered to it, and it decides which wait for a
 * reply, in what order, and which are dropped and why. It holds no timers: time is read from the
 * injected clock whenever a message is offered or a batch is taken, so it costs nothing while chat
 * is quiet, and the same code runs under a test's manual clock.
 *
 * Memory is bounded: at most `queue_max` messages wait, and the per-speaker and per-id memories
 * used for duplicates and first messages keep only their most recent entries.
 */
import type { AudiencePolicy } from '../config/schema/audience.js'
import { createBlockedWordMatcher } from './create-blocked-word-matcher.js'
import { createMapTrimmer } from './create-map-trimmer.js'
import { createSpeakerGuard } from './create-speaker-guard.js'
import { normalizeChatText } from './normalize-chat-text.js'
import { mentionsCharacter, type PriorityReason, scoreAudienceMessage } from './score-audience-message.js'
import type {
  AudienceClock,
  AudienceKeeper,
  AudienceMessage,
  AudienceStanding,
  AudienceTurnAdmitter,
  DroppedAudienceMessage,
} from './types.js'

export interface WaitingMessage {
  message: AudienceMessage
  /** When it was said: its `at` when given and not in the future, else when it arrived. */
  saidAt: number
  arrivedAt: number
  /** Arrival order, for messages said at the same moment. */
  sequence: number
  priority: number
  /** The weights that applied, and the origin's own reason (e.g. a fan medal). */
  reasons: string[]
  /** Pinned by the owner: never dropped for room, taken before any unpinned message. */
  pinned: boolean
  /** Charges the turn that answers it to its origin; none: the turn costs no one. */
  admitTurn?: AudienceTurnAdmitter
  /** Its id and speaker in its source's namespace (see `AudienceOrigin.source`). */
  key: string
  speakerKey: string
}

/** Where a message came from. */
export interface AudienceOrigin {
  /**
   * Who sent it (a connector, a client, a connection): ids and speakers are compared only within
   * one source, so one source's id can never make another's message a duplicate. @default one shared source
   */
  source?: string
  /**
   * Charged when a turn is about to answer it, and for an idle turn in the quiet after it (when its
   * lines were the session's last).
   */
  admitTurn?: AudienceTurnAdmitter
  /** Counts the sessions this origin keeps live (an origin that follows none). */
  keeper?: AudienceKeeper
  /**
   * What the origin knows of a message that the weights do not (a platform's fan medal, a user
   * level): a bonus to its priority, or that it is observed but never answered.
   */
  weigh?: (message: AudienceMessage) => AudienceStanding | undefined
}

export interface OfferResult {
  /** Record the message as an observed line (false for duplicates and blocked messages). */
  observe: boolean
  /** The message now waits for a reply. */
  queued: boolean
  /** This message and any it pushed out of the queue. */
  dropped: DroppedAudienceMessage[]
}

export interface TakeBatchResult {
  batch: WaitingMessage[]
  /** Messages that waited too long (they stay observed). */
  dropped: DroppedAudienceMessage[]
  /**
   * Messages wait but every origin among them refused the turn: they stay queued, and this many
   * milliseconds from now an origin may pay again.
   */
  deferredMs?: number
}

export interface AudienceSelector {
  offer(message: AudienceMessage, origin?: AudienceOrigin): OfferResult
  /**
   * Drops what waited past `max_wait_ms`, then takes up to `batch_max` messages, best first, of the
   * origins that pay for the turn (each origin in the batch is charged one turn, once).
   */
  takeBatch(): TakeBatchResult
  /** Drops what waited past `max_wait_ms`. */
  expire(): DroppedAudienceMessage[]
  waiting(): WaitingMessage[]
  /** Whether any message waits. */
  hasWaiting(): boolean
  isWaiting(id: string): boolean
  pin(id: string): boolean
  /** Removes a waiting message (the owner's drop); false when it is not waiting. */
  remove(id: string): boolean
  /**
   * A reply answering `batch` has been said (not silence): the loop guard looks at it, and the
   * waiting messages of a speaker it stops are dropped (`loop_guard`).
   */
  replied(batch: readonly WaitingMessage[]): DroppedAudienceMessage[]
}

export interface CreateAudienceSelectorOptions {
  clock: AudienceClock
  /** Read on every call, so a config reload applies at once. */
  readPolicy(): AudiencePolicy
  /** The names that count as a mention of the character (its name, its id). */
  readNames(): readonly string[]
  /** Speakers and message ids remembered, most recent kept. @default 10000 */
  memoryLimit?: number
}

interface SpeakerMemory {
  /** Normalized text → when it was last said. */
  said: Map<string, number>
  /** The key of this speaker's message waiting now, if any. */
  waitingKey?: string
}

/** Keeps a small Map's most recent `limit` entries (Maps iterate oldest first). */
function trimOldest<K, V>(map: Map<K, V>, limit: number): void {
  while (map.size > limit) map.delete(map.keys().next().value as K)
}

function readSaidAt(message: AudienceMessage, arrivedAt: number): number {
  if (!message.at) return arrivedAt
  const parsed = Date.parse(message.at)
  return Number.isFinite(parsed) ? Math.min(parsed, arrivedAt) : arrivedAt
}

/**
 * Higher priority first; pinned before all; among equals, the larger gift first (a super chat of
 * ¥100 before one of ¥30, as a streamer reads them), then the older.
 */
function compareWaiting(left: WaitingMessage, right: WaitingMessage): number {
  if (left.pinned !== right.pinned) return left.pinned ? -1 : 1
  if (left.priority !== right.priority) return right.priority - left.priority
  const giftOrder = giftValueOf(right) - giftValueOf(left)
  return giftOrder !== 0 ? giftOrder : compareSaid(left, right)
}

function giftValueOf(entry: WaitingMessage): number {
  return entry.message.gift?.value ?? 0
}

function compareSaid(left: WaitingMessage, right: WaitingMessage): number {
  return left.saidAt - right.saidAt || left.sequence - right.sequence
}

export function createAudienceSelector(options: CreateAudienceSelectorOptions): AudienceSelector {
  const { clock } = options
  const memoryLimit = options.memoryLimit ?? 10_000
  const queue = new Map<string, WaitingMessage>()
  const speakers = new Map<string, SpeakerMemory>()
  const seenIds = new Map<string, true>()
  const trimSpeakers = createMapTrimmer({ map: speakers, limit: memoryLimit })
  const trimSeenIds = createMapTrimmer({ map: seenIds, limit: memoryLimit })
  const guard = createSpeakerGuard({ now: () => clock.now(), memoryLimit })
  let sequence = 0

  const rememberSpeaker = (id: string): { memory: SpeakerMemory; first: boolean } => {
    const memory = speakers.get(id)
    if (memory) {
      // Re-inserted so the most recent speakers are the ones kept.
      speakers.delete(id)
      speakers.set(id, memory)
      return { memory, first: false }
    }
    const fresh: SpeakerMemory = { said: new Map() }
    speakers.set(id, fresh)
    trimSpeakers()
    return { memory: fresh, first: true }
  }

  const removeWaiting = (entry: WaitingMessage) => {
    queue.delete(entry.key)
    const memory = speakers.get(entry.speakerKey)
    if (memory?.waitingKey === entry.key) memory.waitingKey = undefined
  }
  const findWaiting = (id: string) => {
    for (const entry of queue.values()) if (entry.message.id === id) return entry
    return undefined
  }

  /** The entry to give up when one too many wait: the lowest priority, the oldest among equals. */
  const findEvictable = (): WaitingMessage | undefined => {
    let lowest: WaitingMessage | undefined
    for (const entry of queue.values()) {
      if (entry.pinned) continue
      if (!lowest || entry.priority < lowest.priority) lowest = entry
      else if (entry.priority === lowest.priority && compareSaid(entry, lowest) < 0) lowest = entry
    }
    return lowest
  }

  const isWanted = (policy: AudiencePolicy, reasons: PriorityReason[], role: string | undefined) => {
    if (policy.reply === 'none') return false
    if (policy.reply === 'mentions') return reasons.includes('mention') || role === 'owner'
    return true
  }

  const expire = (): DroppedAudienceMessage[] => {
    const limit = clock.now() - options.readPolicy().max_wait_ms
    const dropped: DroppedAudienceMessage[] = []
    for (const entry of queue.values()) {
      if (entry.saidAt >= limit || entry.pinned) continue
      removeWaiting(entry)
      dropped.push({ id: entry.message.id, reason: 'too_old' })
    }
    return dropped
  }

  const enqueue = (entry: WaitingMessage, memory: SpeakerMemory, policy: AudiencePolicy): OfferResult => {
    const dropped: DroppedAudienceMessage[] = []
    const id = entry.message.id
    // A flood from one speaker: one of their messages waits at a time, the better one.
    const rival = memory.waitingKey ? queue.get(memory.waitingKey) : undefined
    if (rival && entry.arrivedAt - rival.arrivedAt <= policy.dedupe_window_ms) {
      if (rival.pinned || compareWaiting(rival, entry) <= 0) {
        return { observe: true, queued: false, dropped: [{ id, reason: 'duplicate' }] }
      }
      removeWaiting(rival)
      dropped.push({ id: rival.message.id, reason: 'duplicate' })
    }
    queue.set(entry.key, entry)
    memory.waitingKey = entry.key
    while (queue.size > policy.queue_max) {
      const evicted = findEvictable()
      if (!evicted) break
      removeWaiting(evicted)
      dropped.push({ id: evicted.message.id, reason: 'queue_full' })
    }
    return { observe: true, queued: queue.has(entry.key), dropped }
  }

  return {
    offer(message, origin = {}) {
      const policy = options.readPolicy()
      const arrivedAt = clock.now()
      const id = message.id
      const source = origin.source ?? ''
      const key = `${source}\u0000${id}`
      if (seenIds.has(key)) return { observe: false, queued: false, dropped: [{ id, reason: 'duplicate' }] }
      seenIds.set(key, true)
      trimSeenIds()
      const text = normalizeChatText(message.text)
      if (createBlockedWordMatcher(policy.blocked_words).find(text) !== undefined) {
        return { observe: false, queued: false, dropped: [{ id, reason: 'blocked' }] }
      }
      const speakerKey = `${source}\u0000${message.speaker.id}`
      const { memory, first } = rememberSpeaker(speakerKey)
      // The same words from the same speaker within the window reach the model once.
      const words = text.compact || text.folded
      const lastSaid = memory.said.get(words)
      if (words && lastSaid !== undefined && arrivedAt - lastSaid <= policy.dedupe_window_ms) {
        return { observe: false, queued: false, dropped: [{ id, reason: 'duplicate' }] }
      }
      if (words) {
        memory.said.delete(words)
        memory.said.set(words, arrivedAt)
        trimOldest(memory.said, 32)
      }
      const standing = origin.weigh?.(message)
      if (standing?.answer === false) return { observe: true, queued: false, dropped: [] }
      // Other bots (ignore_speakers), a stopped loop, a speaker past their minute: observed only.
      const held = guard.check(speakerKey, message.speaker.id, policy)
      if (held === 'ignored') return { observe: true, queued: false, dropped: [] }
      if (held) return { observe: true, queued: false, dropped: [{ id, reason: held }] }
      const names = options.readNames()
      const score =
        policy.reply === 'every'
          ? { priority: 1, reasons: mentionsCharacter(text, names) ? (['mention'] as PriorityReason[]) : [] }
          : scoreAudienceMessage(message, text, { weights: policy.weights, names, firstMessage: first })
      if (!isWanted(policy, score.reasons, message.speaker.role)) {
        return { observe: true, queued: false, dropped: [] }
      }
      const reasons: string[] = score.reasons
      let priority = score.priority
      // `every` answers each message in turn: an origin's bonus does not reorder them.
      if (policy.reply !== 'every' && standing?.bonus !== undefined && standing.bonus > 0) {
        priority += standing.bonus
        if (standing.reason) reasons.push(standing.reason)
      }
      const entry: WaitingMessage = {
        message,
        saidAt: readSaidAt(message, arrivedAt),
        arrivedAt,
        sequence: sequence++,
        priority,
        reasons,
        pinned: false,
        key,
        speakerKey,
        ...(origin.admitTurn ? { admitTurn: origin.admitTurn } : {}),
      }
      if (entry.saidAt < arrivedAt - policy.max_wait_ms) {
        return { observe: true, queued: false, dropped: [{ id, reason: 'too_old' }] }
      }
      return enqueue(entry, memory, policy)
    },
    takeBatch() {
      const dropped = expire()
      const policy = options.readPolicy()
      const batchMax = policy.batch_max
      const batch: WaitingMessage[] = []
      // Each origin is asked once per batch: it pays one turn, or its messages wait for the next.
      const answers = new Map<AudienceTurnAdmitter, boolean>()
      let deferredMs: number | undefined
      for (const entry of [...queue.values()].sort(compareWaiting)) {
        if (batch.length >= batchMax) break
        const admit = entry.admitTurn
        if (admit) {
          let paid = answers.get(admit)
          if (paid === undefined) {
            const answer = admit()
            paid = answer.ok
            answers.set(admit, paid)
            if (!answer.ok) deferredMs = Math.min(deferredMs ?? Infinity, answer.retryAfterMs ?? 1_000)
          }
          if (!paid) continue
        }
        batch.push(entry)
      }
      for (const entry of batch) removeWaiting(entry)
      // Each speaker answered costs one of their turns a minute; past it, observed only.
      const counted = new Map<string, boolean>()
      const answered = batch.filter((entry) => {
        let allowed = counted.get(entry.speakerKey)
        if (allowed === undefined) {
          allowed = guard.takeTurn(entry.speakerKey, policy)
          counted.set(entry.speakerKey, allowed)
        }
        if (!allowed) dropped.push({ id: entry.message.id, reason: 'speaker_rate' })
        return allowed
      })
      batch.splice(0, batch.length, ...answered)
      // Answered in the order they were said, so the reply reads like a conversation.
      batch.sort(compareSaid)
      if (batch.length === 0 && deferredMs !== undefined) return { batch, dropped, deferredMs }
      return { batch, dropped }
    },
    expire,
    waiting: () => [...queue.values()].sort(compareWaiting),
    hasWaiting: () => queue.size > 0,
    isWaiting: (id) => findWaiting(id) !== undefined,
    pin(id) {
      const entry = findWaiting(id)
      if (!entry) return false
      entry.pinned = true
      return true
    },
    remove(id) {
      const entry = findWaiting(id)
      if (!entry) return false
      removeWaiting(entry)
      return true
    },
    replied(answered) {
      const stopped = new Set(guard.replied(answered))
      if (stopped.size === 0) return []
      const dropped: DroppedAudienceMessage[] = []
      for (const entry of queue.values()) {
        if (!stopped.has(entry.speakerKey)) continue
        removeWaiting(entry)
        dropped.push({ id: entry.message.id, reason: 'loop_guard' })
      }
      return dropped
    },
  }
}
