/**
 * What one session's audience does with one character: the selector, and when to start the next
 * turn. An audience turn starts when the session's lane is free and `min_gap_ms` has passed since
 * the last reply; an idle turn when nothing was heard for `idle.after_ms`, no one is speaking and
 * fewer than `idle.max_in_row` idle turns came in a row, and only while the session is live (a person
 * is there: the hub decides) and its audience can be reached (a connector's link is up). Turns it starts queue behind whatever
 * holds the lane, so they never cut a reply; a person's input interrupts them as any turn.
 */
import type { AudiencePolicy } from '../config/schema/audience.js'
import type { CharpipeEvent } from '../shared/events.js'
import { type Language, readAudienceTexts } from '../shared/language/index.js'
import {
  type AudienceSelector,
  createAudienceSelector,
  type WaitingMessage,
} from './create-audience-selector.js'
import type { AudienceClock, AudienceTrigger, DroppedAudienceMessage } from './types.js'

export interface AudienceTurnRequest {
  session: string
  character: string | undefined
  trigger: Exclude<AudienceTrigger, 'input'>
  /** The selected messages (audience turns); none for an idle turn. */
  batch: readonly WaitingMessage[]
  onEvent(event: CharpipeEvent): void
}

/** What the runner needs of the engine. */
export interface AudienceHost {
  clock: AudienceClock
  readPolicy(character: string | undefined): AudiencePolicy
  readNames(character: string | undefined): readonly string[]
  /** Starts a turn (queued behind the lane's turns); resolves when it has ended and left the lane. */
  startTurn(request: AudienceTurnRequest): Promise<void>
  /** Undefined when no turn holds the lane; else resolves when those turns have ended. */
  whenLaneFree(session: string, character: string | undefined): Promise<void> | undefined
  interrupt(session: string, character: string | undefined): void
  /** Whether a reply made now reaches the session's audience; no idle turn starts while it does not. */
  isReachable?(): boolean
}

export interface RunnerReport {
  dropped(dropped: DroppedAudienceMessage[]): void
  selected(batch: readonly WaitingMessage[]): void
  idleTurn(): void
  /**
   * Asked before an idle turn: false when no one who keeps the session live may cause one now (their
   * turn budget is spent); the runner looks again after another `idle.after_ms`.
   */
  admitIdle?(): boolean
  /**
   * The runner has nothing more to start by itself: no message waits, no turn runs or waits for the
   * lane, and no idle turn is to come (idle turns off, the session not live, or `max_in_row` done).
   * Reported at each look that finds it so, until something is heard again.
   */
  settled?(): void
  /** From a message's arrival to the first sentence of the reply that answered it. */
  waited(milliseconds: number): void
  /** An event of a turn the runner started. */
  event(event: CharpipeEvent): void
}

export interface AudienceRunner {
  readonly selector: AudienceSelector
  /** The turn running now, if the runner started it. */
  running(): { trigger: AudienceTrigger; batch: readonly WaitingMessage[] } | undefined
  /** Something was heard (an input, audience messages): idle turns count from now, from zero. */
  heard(): void
  /** Someone in the session starts or stops speaking. */
  setSpeaking(speaking: boolean): void
  /**
   * The session is live (a person is there and a follower hears, or audience messages arrive): idle
   * turns may start.
   */
  setLive(live: boolean): void
  /** Looks at the queue and the clock, and starts a turn or sets a timer for the next look. */
  schedule(): void
  close(): void
}

/** The idle turn's input: `audience.idle.instruction`, or the builtin line in the character's language. */
export function idleInstructionOf(policy: AudiencePolicy, language: Language = 'zh'): string {
  return policy.idle.instruction.trim() || readAudienceTexts(language).idleInstruction
}

export function createAudienceRunner(
  host: AudienceHost,
  session: string,
  character: string | undefined,
  report: RunnerReport,
): AudienceRunner {
  const { clock } = host
  const selector = createAudienceSelector({
    clock,
    readPolicy: () => host.readPolicy(character),
    readNames: () => host.readNames(character),
  })
  let running: { trigger: AudienceTrigger; batch: readonly WaitingMessage[] } | undefined
  let waitingForLane = false
  let timer: unknown
  let timerAt = Number.POSITIVE_INFINITY
  let gapUntil = 0
  let lastHeardAt = clock.now()
  let idleInRow = 0
  let speaking = false
  let live = false
  let closed = false

  const wakeAt = (at: number) => {
    if (timer !== undefined && timerAt <= at) return
    if (timer !== undefined) host.clock.clearTimer(timer)
    timerAt = at
    timer = clock.setTimer(() => {
      timer = undefined
      timerAt = Number.POSITIVE_INFINITY
      schedule()
    }, at - clock.now())
  }

  const start = (trigger: Exclude<AudienceTrigger, 'input'>, batch: readonly WaitingMessage[]) => {
    running = { trigger, batch }
    let answered = false
    const ended = host.startTurn({
      session,
      character,
      trigger,
      batch,
      onEvent(event) {
        if (event.type === 'llm_sentence' && !answered) {
          answered = true
          for (const entry of batch) report.waited(clock.now() - entry.arrivedAt)
        }
        if (event.type === 'llm_done') {
          gapUntil = clock.now() + host.readPolicy(character).min_gap_ms
          lastHeardAt = Math.max(lastHeardAt, clock.now())
          // What was said reached the batch's speakers; silence did not (the loop guard's view).
          if (batch.length > 0 && event.silent !== true && event.text !== '') {
            const dropped = selector.replied(batch)
            if (dropped.length > 0) report.dropped(dropped)
          }
        }
        report.event(event)
      },
    })
    void ended.finally(() => {
      running = undefined
      schedule()
    })
  }

  /** Starts an idle turn when one is due; false when none is to come until something is heard. */
  const startIdleIfDue = (policy: AudiencePolicy, now: number): boolean => {
    const idle = policy.idle
    if (idle.after_ms <= 0 || !live || idleInRow >= idle.max_in_row) return false
    // Someone speaking holds the turn back; it comes once they stop (`setSpeaking(false)`).
    if (speaking) return true
    const dueAt = Math.max(lastHeardAt + idle.after_ms, gapUntil)
    if (now < dueAt) {
      wakeAt(dueAt)
      return true
    }
    if (host.isReachable && !host.isReachable()) {
      // Nobody could have spoken where nobody can hear: the quiet counts again from now.
      lastHeardAt = now
      wakeAt(now + idle.after_ms)
      return true
    }
    if (report.admitIdle && !report.admitIdle()) {
      wakeAt(now + idle.after_ms)
      return true
    }
    idleInRow++
    report.idleTurn()
    start('idle', [])
    return true
  }

  function schedule(): void {
    if (closed || running || waitingForLane) return
    const lane = host.whenLaneFree(session, character)
    if (lane) {
      waitingForLane = true
      void lane.finally(() => {
        waitingForLane = false
        schedule()
      })
      return
    }
    const policy = host.readPolicy(character)
    const now = clock.now()
    if (selector.hasWaiting()) {
      if (now < gapUntil) {
        wakeAt(gapUntil)
        return
      }
      const { batch, dropped, deferredMs } = selector.takeBatch()
      if (dropped.length > 0) report.dropped(dropped)
      if (batch.length > 0) {
        report.selected(batch)
        start('audience', batch)
        return
      }
      // Their origins' budgets are spent: the messages wait (within the selector's own bounds,
      // `too_old` past `max_wait_ms`) and are looked at again when a turn may be paid for.
      if (deferredMs !== undefined) {
        wakeAt(now + deferredMs)
        return
      }
    }
    if (!startIdleIfDue(policy, now) && !selector.hasWaiting()) report.settled?.()
  }

  return {
    selector,
    running: () => running,
    heard() {
      lastHeardAt = clock.now()
      idleInRow = 0
    },
    setSpeaking(value) {
      speaking = value
      lastHeardAt = clock.now()
      // A person speaking is never talked over by the character's own initiative.
      if (value && running?.trigger === 'idle') host.interrupt(session, character)
      if (!value) schedule()
    },
    setLive(value) {
      live = value
      if (value) schedule()
    },
    schedule,
    close() {
      closed = true
      if (timer !== undefined) clock.clearTimer(timer)
      timer = undefined
    },
  }
}
