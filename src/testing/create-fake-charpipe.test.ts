import { describe, expect, it } from 'vitest'
import { parseConfig } from '../characters/load-config.js'
import type { CharpipeEvent } from '../shared/events.js'
import { createFakeCharpipe } from './create-fake-charpipe.js'
import { createManualClock } from './create-manual-clock.js'

const { config } = parseConfig({})

/** Pulls events until one of `type` (undefined: to the turn's end), returning every event pulled. */
async function readUntil(events: AsyncIterator<CharpipeEvent>, type?: CharpipeEvent['type']) {
  const read: CharpipeEvent[] = []
  for (let next = await events.next(); !next.done; next = await events.next()) {
    read.push(next.value)
    if (next.value.type === type) return read
  }
  if (type) throw new Error(`the turn ended without ${type}`)
  return read
}

describe('the fake Charpipe on a manual clock', () => {
  it('streams the first chunk of a `!slow` turn at once and the rest only when the clock moves', async () => {
    const clock = createManualClock()
    const fake = createFakeCharpipe({ config, clock })
    const events = fake.generate({ session: 'slow', text: '!slow story' })[Symbol.asyncIterator]()
    await readUntil(events, 'llm_chunk')
    const waiting = events.next()
    await clock.advance(0)
    expect(clock.pending()).toBe(1)
    expect(fake.sessions.active()).toEqual(['slow'])
    await clock.advance(60_000)
    expect((await waiting).value).toMatchObject({ type: 'llm_chunk' })
    const rest = await readUntil(events)
    expect(rest.at(-1)).toMatchObject({ type: 'llm_done', interrupted: false })
    // The time the turn took is the time the clock moved.
    expect(rest.at(-1)).toMatchObject({ timing: { first_chunk_ms: 0, total_ms: 60_000 } })
  })

  it('ends a `!slow` turn waiting on a clock that stands still when it is interrupted', async () => {
    const clock = createManualClock()
    const fake = createFakeCharpipe({ config, clock })
    const events = fake.generate({ session: 'cut', text: '!slow story' })[Symbol.asyncIterator]()
    const firstChunk = (await readUntil(events, 'llm_chunk')).find((event) => event.type === 'llm_chunk')
    const ending = readUntil(events)
    await fake.interrupt('cut', { heard: 'heard so far' })
    expect((await ending).at(-1)).toMatchObject({
      type: 'llm_done',
      interrupted: true,
      text: firstChunk?.text,
    })
    expect(clock.pending()).toBe(0)
    await fake.idle('cut')
    const history = await fake.sessions.history({ session: 'cut' })
    expect(history.at(-1)).toMatchObject({ role: 'assistant', content: 'heard so far', interrupted: true })
  })

  it('paces chunks by chunkDelayMs on its clock', async () => {
    const clock = createManualClock()
    const fake = createFakeCharpipe({ config, clock, chunkDelayMs: 50 })
    const events = fake.generate({ session: 'paced', text: 'hello' })[Symbol.asyncIterator]()
    await readUntil(events, 'llm_chunk')
    const second = events.next()
    await clock.advance(49)
    expect(clock.pending()).toBe(1)
    await clock.advance(1)
    expect((await second).value).toMatchObject({ type: 'llm_chunk' })
  })
})
