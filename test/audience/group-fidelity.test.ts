/**
 * Group-chat fidelity: in a session with several characters, each sees only what was said while it
 * was present — lines observed, audience messages, the inputs to the other characters and their
 * replies — and nothing said before it joined.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { createCharpipe } from '../../src/engine/index.js'
import type { Charpipe } from '../../src/engine/types.js'
import { makeConfig } from '../../src/testing/create-turn-harness.js'
import { createFakeProvider } from '../../src/testing/index.js'
import { collectEvents } from '../../src/testing/turn-events.js'
import { lastUserText } from './timed-provider.js'

let charpipe: Charpipe | undefined
afterEach(async () => {
  await charpipe?.close()
  charpipe = undefined
})

describe('group-chat fidelity', () => {
  it('each character sees only what was said in the session while it was present', async () => {
    const provider = createFakeProvider({
      defaultReply: [
        { type: 'text-delta', text: '收到。' },
        { type: 'finish', reason: 'stop' },
      ],
    })
    charpipe = await createCharpipe(
      makeConfig({
        character: { name: '小助手', reply_format: 'plain' },
        // Messages are only heard here: no audience turn runs between the checks.
        audience: { reply: 'none' },
        characters: {
          alice: { name: 'Alice', reply_format: 'plain' },
          bob: { name: 'Bob', reply_format: 'plain' },
          carol: { name: 'Carol', reply_format: 'plain' },
        },
      }),
      { provider },
    )
    await charpipe.sessions.open({ session: 'room', character: 'alice' })
    charpipe.sessions.observe({
      session: 'room',
      speaker: { id: '1', name: '小红' },
      text: '只有爱丽丝在的时候说的话',
    })
    await collectEvents(
      charpipe.generate({
        session: 'room',
        character: 'bob',
        text: '鲍勃你好',
        speaker: { id: '2', name: '小明' },
      }),
    )
    const bobSaw = lastUserText(provider.calls[0]!.request)
    expect(bobSaw).not.toContain('只有爱丽丝在的时候说的话')
    charpipe.audience.send({
      session: 'room',
      character: 'alice',
      messages: [{ id: 'a1', speaker: { id: '3', name: '小刚' }, text: '大家晚上好' }],
    })
    await collectEvents(charpipe.generate({ session: 'room', character: 'carol', text: '我来了' }))
    const carolSaw = lastUserText(provider.calls.at(-1)!.request)
    // Carol joins with her own words: nothing said before reaches her.
    expect(carolSaw).toBe('我来了')
    // Bob was there for the audience message and for Carol's words and reply.
    await collectEvents(charpipe.generate({ session: 'room', character: 'bob', text: '继续' }))
    const bobLater = lastUserText(provider.calls.at(-1)!.request)
    expect(bobLater).toContain('大家晚上好')
    expect(bobLater).toContain('我来了')
    expect(bobLater).toContain('Carol(carol): 收到。')
    expect(bobLater).not.toContain('只有爱丽丝在的时候说的话')
    // Alice was there from the start: the first line, Bob's exchange, the audience, Carol's.
    await collectEvents(charpipe.generate({ session: 'room', character: 'alice', text: '我也在' }))
    const aliceSaw = lastUserText(provider.calls.at(-1)!.request)
    for (const said of [
      '只有爱丽丝在的时候说的话',
      '鲍勃你好',
      'Bob(bob): 收到。',
      '大家晚上好',
      '我来了',
      '继续',
    ]) {
      expect(aliceSaw).toContain(said)
    }
  })
})
