/**
 * Speaking first (`audience.idle`): after `after_ms` of quiet a followed session where a person is
 * (their activity, a line, an input) gets a turn of the character's own (`trigger: "idle"`), at most
 * `max_in_row` in a row; a follower alone never starts one; none starts while someone speaks
 * (`activity`), one running is interrupted by it (what was said so far is kept), and the model is
 * never sent an empty user message. Time is a manual clock: minutes pass in milliseconds.
 */
import { afterEach, describe, expect, it, vi } from 'vitest'
import { createCharpipe } from '../../src/engine/index.js'
import type { Charpipe } from '../../src/engine/types.js'
import { messageText } from '../../src/shared/messages.js'
import { makeConfig } from '../../src/testing/create-turn-harness.js'
import { createManualClock, type ManualClock } from '../../src/testing/index.js'
import { createTimedProvider, lastUserText, type TimedProvider } from './timed-provider.js'

let charpipe: Charpipe | undefined
afterEach(async () => {
  await charpipe?.close()
  charpipe = undefined
})

async function setUp(instruction = '', person = true) {
  const clock = createManualClock()
  const provider = createTimedProvider({ clock, firstTokenMs: 700, chunkMs: 80 })
  charpipe = await createCharpipe(
    makeConfig({
      character: { reply_format: 'plain' },
      audience: { idle: { after_ms: 5000, max_in_row: 2, instruction } },
    }),
    { provider, clock },
  )
  const events: Record<string, unknown>[] = []
  charpipe.sessions.follow({
    session: 'room',
    onEvent: (event) => events.push(event as unknown as Record<string, unknown>),
  })
  // A person is there (a voice client's activity): the quiet counts from now.
  if (person) charpipe.sessions.activity({ session: 'room', speaking: false })
  return { clock, provider, events, charpipe }
}

const doneEvents = (events: Record<string, unknown>[]) => events.filter((event) => event.type === 'llm_done')

/** Moves the clock in steps, letting the turn's promise work run between them. */
async function pass(clock: ManualClock, milliseconds: number, step = 100) {
  for (let passed = 0; passed < milliseconds; passed += step)
    await clock.advance(Math.min(step, milliseconds - passed))
}

async function untilRequests(provider: TimedProvider, count: number) {
  await vi.waitFor(() => expect(provider.requests).toHaveLength(count))
}

describe('speaking first (audience.idle)', () => {
  it('speaks after after_ms of quiet, stops after max_in_row, never with an empty user message', async () => {
    const { clock, provider, events } = await setUp()
    await pass(clock, 4900)
    expect(provider.requests).toHaveLength(0)
    await pass(clock, 200)
    await untilRequests(provider, 1)
    await pass(clock, 3000)
    await vi.waitFor(() => expect(doneEvents(events)).toHaveLength(1))
    expect(new Set(events.map((event) => event.trigger))).toEqual(new Set(['idle']))
    await pass(clock, 5200)
    await untilRequests(provider, 2)
    await pass(clock, 3000)
    await vi.waitFor(() => expect(doneEvents(events)).toHaveLength(2))
    // max_in_row: 2 — quiet goes on, the character does not.
    await pass(clock, 30_000, 1000)
    expect(provider.requests).toHaveLength(2)
    for (const request of provider.requests) expect(lastUserText(request).trim()).not.toBe('')
    expect(doneEvents(events).every((event) => event.interrupted === false)).toBe(true)
  })

  it('a follower alone never speaks first; a line observed, an input or activity from a person does', async () => {
    const { clock, provider, events, charpipe } = await setUp('', false)
    await pass(clock, 60_000, 1000)
    expect(provider.requests).toHaveLength(0)
    charpipe.sessions.observe({ session: 'room', speaker: { id: 'viewer-1' }, text: '有人吗' })
    await pass(clock, 4900)
    expect(provider.requests).toHaveLength(0)
    await pass(clock, 200)
    await untilRequests(provider, 1)
    await pass(clock, 3000)
    await vi.waitFor(() => expect(doneEvents(events)).toHaveLength(1))
    expect(doneEvents(events)[0]).toMatchObject({ trigger: 'idle' })
  })

  it('after max_in_row the room is quiet until a person comes back', async () => {
    const { clock, provider, charpipe } = await setUp()
    for (let count = 1; count <= 2; count++) {
      await pass(clock, 5200)
      await untilRequests(provider, count)
      await pass(clock, 3000)
    }
    await pass(clock, 60_000, 1000)
    expect(provider.requests).toHaveLength(2)
    charpipe.sessions.activity({ session: 'room', speaking: false })
    await pass(clock, 5200)
    await untilRequests(provider, 3)
  })

  it('an input starts the count again; the configured instruction is what the model is asked', async () => {
    const { clock, provider, events, charpipe } = await setUp('说说今天的天气')
    await pass(clock, 5100)
    await untilRequests(provider, 1)
    await pass(clock, 3000)
    const reply = charpipe.generate({ session: 'room', text: '你好' })
    const consumed = (async () => {
      for await (const _event of reply) {
        /* the input's own events go to its caller, not to followers */
      }
    })()
    await untilRequests(provider, 2)
    await pass(clock, 3000)
    await consumed
    await pass(clock, 5100)
    await untilRequests(provider, 3)
    await pass(clock, 3000)
    await vi.waitFor(() => expect(doneEvents(events)).toHaveLength(2))
    expect(lastUserText(provider.requests[0]!)).toContain('说说今天的天气')
    expect(lastUserText(provider.requests[2]!)).toContain('说说今天的天气')
    expect(doneEvents(events).every((event) => event.trigger === 'idle')).toBe(true)
    // Stored as what it is, an event, and replayed to the model as a note, never as the user's words.
    const stored = await charpipe.sessions.history({ session: 'room' })
    expect(stored.map((message) => message.role)).toEqual([
      'event',
      'assistant',
      'user',
      'assistant',
      'event',
      'assistant',
    ])
    expect(stored[0]!.content).toBe('说说今天的天气')
    // (The note opens the history here, so it joins the system prompt at its end.)
    const notes = provider.requests[1]!.messages.filter((message) => message.role === 'system').map(
      messageText,
    )
    expect(notes.join('\n')).toContain('[事件] 此时无人说话，你被提示主动开口：说说今天的天气')
    const userTexts = provider.requests[1]!.messages.filter((message) => message.role === 'user').map(
      messageText,
    )
    expect(userTexts.join('\n')).not.toContain('说说今天的天气')
  })

  it('waits while someone speaks, and a running idle turn is interrupted by speech, its words kept', async () => {
    const { clock, provider, events, charpipe } = await setUp()
    charpipe.sessions.activity({ session: 'room', speaking: true })
    await pass(clock, 20_000, 500)
    expect(provider.requests).toHaveLength(0)
    charpipe.sessions.activity({ session: 'room', speaking: false })
    await pass(clock, 4900)
    expect(provider.requests).toHaveLength(0)
    await pass(clock, 200)
    await untilRequests(provider, 1)
    // Past the first token, a person starts talking: the character stops.
    await pass(clock, 900)
    await vi.waitFor(() => expect(events.some((event) => event.type === 'llm_chunk')).toBe(true))
    charpipe.sessions.activity({ session: 'room', speaking: true })
    await pass(clock, 100)
    const [done] = await vi.waitFor(() => {
      const found = doneEvents(events)
      expect(found).toHaveLength(1)
      return found
    })
    expect(done).toMatchObject({ trigger: 'idle', interrupted: true })
    expect(String(done!.text).length).toBeGreaterThan(0)
    await vi.waitFor(async () => {
      const stored = await charpipe.sessions.history({ session: 'room' })
      // Stored as any barge-in without `heard`: the sentences said before it, not the half sentence after.
      expect(stored.at(-1)).toMatchObject({ role: 'assistant', interrupted: true })
      expect(String(done!.text).startsWith(stored.at(-1)!.content)).toBe(true)
      expect(stored.at(-1)!.content.length).toBeGreaterThan(0)
    })
    await pass(clock, 20_000, 500)
    expect(provider.requests).toHaveLength(1)
    expect(provider.maxConcurrent).toBe(1)
  })
})
