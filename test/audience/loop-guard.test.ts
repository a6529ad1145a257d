/**
 * Two bots in one chat: another automated speaker answers each of the character's replies within a
 * second. The loop guard stops the exchange within its bound (`loopGuard.quickRepliesInRow + 1`
 * replies to that speaker), its lines dropped with `loop_guard`, while a person in the same chat is
 * still answered. Ignored speakers are never answered. Time is a manual clock.
 */
import { afterEach, describe, expect, it } from 'vitest'
import type { AudienceDroppedEvent } from '../../src/audience/create-audience-hub.js'
import { loopGuard } from '../../src/audience/create-speaker-guard.js'
import { createCharpipe } from '../../src/engine/index.js'
import type { Charpipe } from '../../src/engine/types.js'
import type { CharpipeEvent } from '../../src/shared/events.js'
import { makeConfig } from '../../src/testing/create-turn-harness.js'
import { createManualClock, type ManualClock } from '../../src/testing/index.js'
import { createTimedProvider, lastUserText } from './timed-provider.js'

let charpipe: Charpipe | undefined
afterEach(async () => {
  await charpipe?.close()
  charpipe = undefined
})

async function pass(clock: ManualClock, milliseconds: number, step = 100) {
  for (let passed = 0; passed < milliseconds; passed += step)
    await clock.advance(Math.min(step, milliseconds - passed))
}

async function setUp(audience: Record<string, unknown> = {}) {
  const clock = createManualClock()
  const provider = createTimedProvider({ clock, firstTokenMs: 300, chunkMs: 20, reply: () => '好的。' })
  charpipe = await createCharpipe(makeConfig({ character: { reply_format: 'plain' }, audience }), {
    provider,
    clock,
  })
  const done: Extract<CharpipeEvent, { type: 'llm_done' }>[] = []
  const dropped: AudienceDroppedEvent[] = []
  return { clock, provider, done, dropped, charpipe }
}

describe('another bot in the chat', () => {
  it('an exchange with a bot that answers every reply within a second stops within the bound', async () => {
    const { clock, done, dropped, charpipe } = await setUp()
    let lines = 0
    const say = (speaker: string) =>
      charpipe.audience.send({
        session: 'group',
        messages: [{ id: `${speaker}-${++lines}`, speaker: { id: speaker }, text: `第${lines}句话` }],
      })
    charpipe.sessions.follow({
      session: 'group',
      onEvent: (event) => {
        if (event.type === 'audience_dropped') dropped.push(event)
        if (event.type !== 'llm_done') return
        done.push(event)
        // The other bot answers every reply of the character a second later.
        clock.setTimer(() => say('other-bot'), 1000)
      },
    })
    say('other-bot')
    await pass(clock, 120_000, 250)
    const toBot = done.filter((event) => event.replying_to?.some((id) => id.startsWith('other-bot')))
    expect(toBot.length).toBe(loopGuard.quickRepliesInRow + 1)
    expect(dropped.some((event) => event.reason === 'loop_guard')).toBe(true)
    // A person is still answered while the bot cools down.
    say('person')
    await pass(clock, 10_000, 250)
    expect(done.at(-1)?.replying_to?.[0]).toMatch(/^person-/)
  })

  it('an ignored speaker is read by the model but never answered', async () => {
    const { clock, provider, done, charpipe } = await setUp({ ignore_speakers: ['other-bot'] })
    charpipe.sessions.follow({
      session: 'group',
      onEvent: (event) => {
        if (event.type === 'llm_done') done.push(event)
      },
    })
    charpipe.audience.send({
      session: 'group',
      messages: [{ id: 'b1', speaker: { id: 'other-bot', name: 'Bot' }, text: '我是机器人' }],
    })
    await pass(clock, 10_000, 250)
    expect(provider.requests).toHaveLength(0)
    charpipe.audience.send({
      session: 'group',
      messages: [{ id: 'p1', speaker: { id: 'person' }, text: '你好' }],
    })
    await pass(clock, 10_000, 250)
    expect(done.map((event) => event.replying_to)).toEqual([['p1']])
    expect(lastUserText(provider.requests[0]!)).toContain('我是机器人')
  })
})
