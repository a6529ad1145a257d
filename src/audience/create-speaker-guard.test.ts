import { describe, expect, it } from 'vitest'
import { audienceSchema } from '../config/schema/audience.js'
import { createManualClock } from '../testing/create-manual-clock.js'
import { createAudienceSelector } from './create-audience-selector.js'
import { loopGuard } from './create-speaker-guard.js'
import type { AudienceMessage } from './types.js'

let counter = 0
const line = (speaker: string, text = `line ${counter}`): AudienceMessage => ({
  id: `m${++counter}`,
  speaker: { id: speaker },
  text: `${text} ${counter}`,
})

const setUp = (policy: Record<string, unknown> = {}) => {
  const clock = createManualClock()
  const parsed = audienceSchema.parse({ dedupe_window_ms: 0, ...policy })
  const selector = createAudienceSelector({ clock, readPolicy: () => parsed, readNames: () => ['小助手'] })
  return { clock, selector }
}

describe('speakers the character does not answer', () => {
  it('observes an ignored speaker and never queues them, with no drop', () => {
    const { selector } = setUp({ ignore_speakers: ['bot-7'] })
    expect(selector.offer(line('bot-7'))).toEqual({ observe: true, queued: false, dropped: [] })
    expect(selector.offer(line('person')).queued).toBe(true)
  })

  it('answers one speaker speaker_turns_per_minute times a minute; past it, speaker_rate and observed', async () => {
    const { clock, selector } = setUp({ speaker_turns_per_minute: 2 })
    for (let reply = 0; reply < 2; reply++) {
      selector.offer(line('chatty'))
      expect(selector.takeBatch().batch).toHaveLength(1)
      await clock.advance(1000)
    }
    const third = line('chatty')
    expect(selector.offer(third)).toEqual({
      observe: true,
      queued: false,
      dropped: [{ id: third.id, reason: 'speaker_rate' }],
    })
    // Others are not held back by one speaker's minute.
    expect(selector.offer(line('other')).queued).toBe(true)
    await clock.advance(60_000)
    expect(selector.offer(line('chatty')).queued).toBe(true)
  })

  it('a line queued before the minute filled is dropped with speaker_rate when its turn comes', async () => {
    const { clock, selector } = setUp({ speaker_turns_per_minute: 1, batch_max: 1 })
    const first = line('chatty')
    const second = line('chatty')
    selector.offer(first)
    await clock.advance(100)
    selector.offer(second)
    expect(selector.takeBatch().batch.map((entry) => entry.message.id)).toEqual([first.id])
    expect(selector.takeBatch()).toEqual({ batch: [], dropped: [{ id: second.id, reason: 'speaker_rate' }] })
  })

  it('stops a speaker who answers every reply faster than people type, for the cool-down', async () => {
    const { clock, selector } = setUp()
    let replies = 0
    let dropped: unknown[] = []
    // A bot: its line comes one second after each reply, and is answered each time.
    selector.offer(line('bot'))
    for (let round = 0; round < 10 && dropped.length === 0; round++) {
      const { batch } = selector.takeBatch()
      expect(batch).toHaveLength(1)
      await clock.advance(2000)
      replies++
      expect(selector.replied(batch)).toEqual([])
      await clock.advance(1000)
      const answer = line('bot')
      dropped = selector.offer(answer).dropped
      if (dropped.length > 0) expect(dropped).toEqual([{ id: answer.id, reason: 'loop_guard' }])
    }
    // The first line answered nothing; each after it came quickly: stopped after this many replies.
    expect(replies).toBe(loopGuard.quickRepliesInRow + 1)
    const next = line('bot')
    expect(selector.offer(next).dropped).toEqual([{ id: next.id, reason: 'loop_guard' }])
    await clock.advance(loopGuard.coolDownMs)
    expect(selector.offer(line('bot')).queued).toBe(true)
  })

  it('a person who answers quickly now and then is never stopped', async () => {
    const { clock, selector } = setUp({ speaker_turns_per_minute: 100 })
    for (let round = 0; round < 20; round++) {
      // Every third line is slow: the count of quick replies in a row starts again.
      selector.offer(line('person'))
      const { batch } = selector.takeBatch()
      await clock.advance(500)
      expect(selector.replied(batch)).toEqual([])
      await clock.advance(round % 3 === 2 ? loopGuard.quickLineMs + 1000 : 1000)
    }
    expect(selector.offer(line('person')).queued).toBe(true)
  })
})
