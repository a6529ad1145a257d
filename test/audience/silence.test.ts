/**
 * Silence (`conversation.silence`): on a turn whose trigger allows it the model is told it may
 * answer `[silence]` alone, and such a reply sends no chunk and no sentence, ends with
 * `llm_done.silent` and empty text, and is stored as the signal (never an empty reply). On other
 * turns `[silence]` is text. Idle turns that chose silence count toward `idle.max_in_row`.
 */
import { afterEach, describe, expect, it, vi } from 'vitest'
import type { CharpipeConfigInput } from '../../src/config/schema.js'
import { createCharpipe } from '../../src/engine/index.js'
import type { Charpipe } from '../../src/engine/types.js'
import type { CharpipeEvent } from '../../src/shared/events.js'
import { createScriptedProvider } from '../../src/testing/create-scripted-provider.js'
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

const silenceNote = /\[silence\]/

/** One direct input, its events collected; the reply is played in the given chunks. */
async function answer(chunks: string[], config: CharpipeConfigInput, generateOptions = {}) {
  const provider = createScriptedProvider([{ chunks }])
  charpipe = await createCharpipe(makeConfig(config), { provider })
  const events: CharpipeEvent[] = []
  await charpipe.run(
    { session: 's', text: '你好' },
    { ...generateOptions, onEvent: (event) => events.push(event) },
  )
  const history = await charpipe.sessions.history({ session: 's' })
  return { events, request: provider.requests[0]!, history }
}

const spoken = (events: CharpipeEvent[]) =>
  events.filter((event) => event.type === 'llm_chunk' || event.type === 'llm_sentence')

describe('silence on a direct input', () => {
  it('is text by default: [silence] is said, and the model is not told it may be silent', async () => {
    const { events, request, history } = await answer(['[sil', 'ence]'], {
      character: { reply_format: 'plain' },
    })
    expect(lastUserText(request)).not.toMatch(silenceNote)
    const done = events.at(-1)
    expect(done).toMatchObject({ type: 'llm_done', text: '[silence]' })
    expect(done).not.toHaveProperty('silent')
    expect(spoken(events).length).toBeGreaterThan(0)
    expect(history.at(-1)).toMatchObject({ role: 'assistant', content: '[silence]' })
  })

  for (const [format, chunks] of [
    ['json', ['{"emotion":"平静","te', 'xt":" [sil', 'ence', ']"}']],
    ['prefix', ['{"emotion":"平', '静"}\n[', 'silence', ']\n']],
    ['auto', ['{"text":"', '[silence]', '"}']],
    ['plain', [' ', '[', 'silence', ']']],
  ] as const) {
    it(`with input among the triggers, silence split across chunks (${format}) sends nothing`, async () => {
      const { events, request, history } = await answer([...chunks], {
        character: { reply_format: format },
        conversation: { silence: { triggers: ['input'] } },
      })
      expect(lastUserText(request)).toMatch(silenceNote)
      expect(spoken(events)).toEqual([])
      expect(events.at(-1)).toMatchObject({ type: 'llm_done', text: '', silent: true, interrupted: false })
      // Stored as the signal the model wrote: the next turn shows it the reply it chose.
      expect(history.map((message) => [message.role, message.content])).toEqual([
        ['user', '你好'],
        ['assistant', '[silence]'],
      ])
    })
  }

  it('a resend of an input whose turn was silent is answered from the store as silence', async () => {
    const provider = createScriptedProvider([{ chunks: ['[silence]'] }, { chunks: ['不该再问模型'] }])
    charpipe = await createCharpipe(
      makeConfig({
        character: { reply_format: 'plain' },
        conversation: { silence: { triggers: ['input'] } },
      }),
      { provider },
    )
    const runOnce = async () => {
      const events: CharpipeEvent[] = []
      await charpipe!.run(
        { session: 's', text: '你好', id: 'input-1' },
        { onEvent: (event) => events.push(event) },
      )
      return events
    }
    await runOnce()
    const again = await runOnce()
    expect(provider.requests).toHaveLength(1)
    expect(spoken(again)).toEqual([])
    expect(again.at(-1)).toMatchObject({ type: 'llm_done', text: '', silent: true })
  })

  it('a reply that only starts like silence is said in full', async () => {
    const { events } = await answer(['[sil', 'ly] 好'], {
      character: { reply_format: 'plain' },
      conversation: { silence: { triggers: ['input'] } },
    })
    expect(events.at(-1)).toMatchObject({ type: 'llm_done', text: '[silly] 好' })
    expect(events.find((event) => event.type === 'llm_chunk')).toMatchObject({ text: '[silly] 好' })
  })

  it("a connector's 1:1 chat is the connector trigger: silent by default", async () => {
    const { events, request } = await answer(
      ['[silence]'],
      { character: { reply_format: 'plain' } },
      {
        source: 'connector',
      },
    )
    expect(lastUserText(request)).toMatch(silenceNote)
    expect(spoken(events)).toEqual([])
    expect(events.at(-1)).toMatchObject({ type: 'llm_done', text: '', silent: true, trigger: 'input' })
  })
})

describe('silence on turns the server starts', () => {
  it('an idle turn that chooses silence sends nothing and counts toward max_in_row', async () => {
    const clock = createManualClock()
    const provider = createTimedProvider({ clock, firstTokenMs: 100, chunkMs: 20, reply: () => '[silence]' })
    charpipe = await createCharpipe(
      makeConfig({
        character: { reply_format: 'plain' },
        audience: { idle: { after_ms: 5000, max_in_row: 2 } },
      }),
      { provider, clock },
    )
    const events: CharpipeEvent[] = []
    charpipe.sessions.follow({ session: 'room', onEvent: (event) => events.push(event as CharpipeEvent) })
    // A person is there: a follower alone never starts an idle turn.
    charpipe.sessions.activity({ session: 'room', speaking: false })
    await pass(clock, 30_000, 200)
    await vi.waitFor(() => expect(events.filter((event) => event.type === 'llm_done')).toHaveLength(2))
    await pass(clock, 30_000, 1000)
    expect(provider.requests).toHaveLength(2)
    for (const request of provider.requests) expect(lastUserText(request)).toMatch(silenceNote)
    expect(spoken(events)).toEqual([])
    for (const done of events.filter((event) => event.type === 'llm_done')) {
      expect(done).toMatchObject({ trigger: 'idle', text: '', silent: true })
    }
  })

  it('an audience turn that chooses silence sends nothing; the next one sees the silence it chose', async () => {
    const clock = createManualClock()
    let replies = 0
    const provider = createTimedProvider({
      clock,
      firstTokenMs: 100,
      chunkMs: 20,
      reply: () => (replies++ === 0 ? '[silence]' : '好的。'),
    })
    charpipe = await createCharpipe(makeConfig({ character: { reply_format: 'json' } }), { provider, clock })
    const events: CharpipeEvent[] = []
    charpipe.sessions.follow({ session: 'room', onEvent: (event) => events.push(event as CharpipeEvent) })
    charpipe.audience.send({ session: 'room', messages: [{ id: 'a', speaker: { id: 'v1' }, text: '嗯' }] })
    await pass(clock, 3000)
    await vi.waitFor(() => expect(events.filter((event) => event.type === 'llm_done')).toHaveLength(1))
    expect(spoken(events)).toEqual([])
    expect(events.at(-1)).toMatchObject({ trigger: 'audience', text: '', silent: true, replying_to: ['a'] })
    charpipe.audience.send({
      session: 'room',
      messages: [{ id: 'b', speaker: { id: 'v1' }, text: '在吗？' }],
    })
    await pass(clock, 5000)
    await vi.waitFor(() => expect(events.filter((event) => event.type === 'llm_done')).toHaveLength(2))
    const earlier = provider.requests[1]!.messages.filter((message) => message.role === 'assistant')
    expect(earlier.map((message) => message.content)).toEqual(['{"emotion": "平静", "text": "[silence]"}'])
  })
})
