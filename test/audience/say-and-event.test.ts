/**
 * `sessions.say` and `sessions.event` through the engine: a say turn sends the given words to the
 * session's followers as any reply (emotion, chunks, the sentence splitter's sentences, `llm_done`,
 * all `trigger: "say"`) with no model call, queued behind a running turn and stored as the
 * character's words; an event is stored as an event the model sees in later turns, never as anyone's
 * words, and with `respond: true` answered by a turn of its own (`trigger: "event"`) that may be
 * silent when `conversation.silence.triggers` has `event`. Time is a manual clock.
 */
import { afterEach, describe, expect, it, vi } from 'vitest'
import type { CharpipeConfigInput } from '../../src/config/schema.js'
import { createCharpipe } from '../../src/engine/index.js'
import type { Charpipe } from '../../src/engine/types.js'
import type { CharpipeEvent } from '../../src/shared/events.js'
import { messageText } from '../../src/shared/messages.js'
import { makeConfig } from '../../src/testing/create-turn-harness.js'
import { createManualClock, type ManualClock } from '../../src/testing/index.js'
import { createTimedProvider, lastUserText } from './timed-provider.js'

let charpipe: Charpipe | undefined
afterEach(async () => {
  await charpipe?.close()
  charpipe = undefined
})

async function setUp(overrides: CharpipeConfigInput = {}, reply?: () => string) {
  const clock = createManualClock()
  const provider = createTimedProvider({ clock, firstTokenMs: 200, chunkMs: 20, ...(reply ? { reply } : {}) })
  charpipe = await createCharpipe(
    makeConfig({
      character: { reply_format: 'plain', emotions: ['平静', '开心'], default_emotion: '平静' },
      ...overrides,
    }),
    { provider, clock },
  )
  const events: CharpipeEvent[] = []
  charpipe.sessions.follow({ session: 'room', onEvent: (event) => events.push(event as CharpipeEvent) })
  return { clock, provider, events, charpipe }
}

async function pass(clock: ManualClock, milliseconds: number, step = 100) {
  for (let passed = 0; passed < milliseconds; passed += step)
    await clock.advance(Math.min(step, milliseconds - passed))
}

const ofTurn = (events: CharpipeEvent[], turn: string) => events.filter((event) => event.turn === turn)
const doneOf = (events: CharpipeEvent[], turn: string) =>
  ofTurn(events, turn).find((event) => event.type === 'llm_done')

async function untilDone(events: CharpipeEvent[], turn: string) {
  return vi.waitFor(() => {
    const done = doneOf(events, turn)
    expect(done).toBeDefined()
    return done!
  })
}

describe('say', () => {
  it('sends the words as a reply to followers, sentence by sentence, with no model call, and stores them', async () => {
    const { provider, events, charpipe } = await setUp()
    const text = '大家好，欢迎来到直播间！今天我们来聊聊天气。'
    const { turn } = charpipe.sessions.say({ session: 'room', text, emotion: '开心' })
    const done = await untilDone(events, turn)
    const mine = ofTurn(events, turn)
    expect(new Set(mine.map((event) => event.trigger))).toEqual(new Set(['say']))
    expect(mine[0]).toMatchObject({ type: 'llm_emotion', emotion: '开心' })
    const chunks = mine.flatMap((event) => (event.type === 'llm_chunk' ? [event.text] : []))
    expect(chunks.join('')).toBe(text)
    const sentences = mine.flatMap((event) => (event.type === 'llm_sentence' ? [event] : []))
    expect(sentences.map((sentence) => sentence.text)).toEqual([
      '大家好，欢迎来到直播间！',
      '今天我们来聊聊天气。',
    ])
    expect(sentences.every((sentence) => sentence.emotion === '开心')).toBe(true)
    expect(done).toMatchObject({ text, emotion: '开心', interrupted: false })
    expect(mine.at(-1)).toBe(done)
    expect(provider.requests).toHaveLength(0)
    const stored = await charpipe.sessions.history({ session: 'room' })
    expect(stored).toMatchObject([{ role: 'assistant', content: text, emotion: '开心', turn }])
  })

  it("uses the character's default emotion for one it does not have", async () => {
    const { events, charpipe } = await setUp()
    const { turn } = charpipe.sessions.say({ session: 'room', text: '嗯。', emotion: '愤怒' })
    expect(await untilDone(events, turn)).toMatchObject({ emotion: '平静' })
  })

  it('waits for a running reply instead of cutting it, and the model sees the words later', async () => {
    const { clock, provider, events, charpipe } = await setUp()
    const reply = charpipe.generate({ session: 'room', text: '你好' })
    const consumed = (async () => {
      for await (const _event of reply) {
        /* the input's events go to its caller */
      }
    })()
    await vi.waitFor(() => expect(provider.requests).toHaveLength(1))
    const { turn } = charpipe.sessions.say({ session: 'room', text: '插一句话。' })
    await pass(clock, 100)
    expect(doneOf(events, turn)).toBeUndefined()
    await pass(clock, 3000)
    await consumed
    await untilDone(events, turn)
    const stored = await charpipe.sessions.history({ session: 'room' })
    expect(stored.map((message) => message.role)).toEqual(['user', 'assistant', 'assistant'])
    expect(stored.at(-1)).toMatchObject({ content: '插一句话。', turn })
    const next = charpipe.generate({ session: 'room', text: '刚才你说了什么？' })
    const finished = (async () => {
      for await (const _event of next) {
        /* drained */
      }
    })()
    await vi.waitFor(() => expect(provider.requests).toHaveLength(2))
    await pass(clock, 3000)
    await finished
    const said = provider.requests[1]!.messages.filter((message) => message.role === 'assistant').map(
      messageText,
    )
    expect(said.join('\n')).toContain('插一句话。')
  })

  it('refuses text past conversation.max_input_chars, naming the bound, and empty text', async () => {
    const { charpipe } = await setUp({ conversation: { max_input_chars: 10 } })
    expect(() => charpipe.sessions.say({ session: 'room', text: '一'.repeat(11) })).toThrow(
      /conversation\.max_input_chars/,
    )
    expect(() => charpipe.sessions.say({ session: 'room', text: '  ' })).toThrow(/text/)
    await expect(charpipe.sessions.event({ session: 'room', text: '一'.repeat(11) })).rejects.toThrow(
      /conversation\.max_input_chars/,
    )
    // The event's note counts: words that fit alone but not with it are refused before anything runs.
    await expect(
      charpipe.sessions.event({ session: 'room', text: '一'.repeat(8), respond: true }),
    ).rejects.toThrow(/conversation\.max_input_chars/)
  })
})

describe('event', () => {
  it('is stored as an event, and the next turn shows it to the model as a note, not as words', async () => {
    const { clock, provider, charpipe } = await setUp()
    const result = await charpipe.sessions.event({ session: 'room', text: '主播收到了一份礼物' })
    expect(result).toEqual({ id: expect.any(String) })
    expect(provider.requests).toHaveLength(0)
    const reply = charpipe.generate({ session: 'room', text: '刚才发生了什么？' })
    const consumed = (async () => {
      for await (const _event of reply) {
        /* drained */
      }
    })()
    await vi.waitFor(() => expect(provider.requests).toHaveLength(1))
    await pass(clock, 3000)
    await consumed
    const messages = provider.requests[0]!.messages
    const notes = messages.filter((message) => message.role === 'system').map(messageText)
    expect(notes.join('\n')).toContain('[事件] 主播收到了一份礼物')
    const users = messages.filter((message) => message.role === 'user').map(messageText)
    expect(users.join('\n')).not.toContain('主播收到了一份礼物')
    expect(notes.join('\n')).not.toContain('主动开口')
    const stored = await charpipe.sessions.history({ session: 'room' })
    expect(stored.map((message) => message.role)).toEqual(['event', 'user', 'assistant'])
  })

  it('with respond: true starts a turn that answers it, heard by followers, stored after the event', async () => {
    const { clock, provider, events, charpipe } = await setUp()
    const result = await charpipe.sessions.event({ session: 'room', text: '有人关注了直播间', respond: true })
    expect(result.turn).toEqual(expect.any(String))
    await vi.waitFor(() => expect(provider.requests).toHaveLength(1))
    expect(lastUserText(provider.requests[0]!)).toContain('[事件] 有人关注了直播间')
    await pass(clock, 3000)
    const done = await untilDone(events, result.turn!)
    expect(done).toMatchObject({ trigger: 'event', interrupted: false })
    expect(String(done.type === 'llm_done' ? done.text : '')).not.toBe('')
    await vi.waitFor(async () => {
      const stored = await charpipe.sessions.history({ session: 'room' })
      expect(stored.map((message) => message.role)).toEqual(['event', 'assistant'])
      expect(stored[0]!.content).toBe('[事件] 有人关注了直播间')
    })
  })

  it('may end in silence when conversation.silence.triggers has event', async () => {
    const { clock, events, charpipe } = await setUp(
      { conversation: { silence: { triggers: ['event'] } } },
      () => '[silence]',
    )
    const result = await charpipe.sessions.event({ session: 'room', text: '灯灭了', respond: true })
    await pass(clock, 3000)
    const done = await untilDone(events, result.turn!)
    expect(done).toMatchObject({ trigger: 'event', text: '', silent: true })
    expect(ofTurn(events, result.turn!).some((event) => event.type === 'llm_sentence')).toBe(false)
  })

  it('refuses a respond that is not a boolean', async () => {
    const { charpipe } = await setUp()
    await expect(
      charpipe.sessions.event({ session: 'room', text: '嗯', respond: 'yes' as unknown as boolean }),
    ).rejects.toThrow(/respond/)
  })
})
