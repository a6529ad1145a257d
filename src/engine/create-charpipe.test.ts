import { describe, expect, it } from 'vitest'
import { createInMemoryHistoryStore } from '../memory/index.js'
import type { HistoryStore } from '../memory/types.js'
import { UpstreamHttpError } from '../shared/errors.js'
import type { CharpipeEvent } from '../shared/events.js'
import { createFakeParts } from '../testing/create-fake-engine-parts.js'
import { createScriptedProvider, type ScriptedStep } from '../testing/create-scripted-provider.js'
import { makeConfig } from '../testing/create-turn-harness.js'
import { collectEvents, doneOf, sentencesOf, typesOf, watchEvents } from '../testing/turn-events.js'
import { type CreateCharpipeOptions, createCharpipe } from './create-charpipe.js'

const scope = (session = 'default') => ({ character: '小助手', session })

async function setup(
  steps: ScriptedStep[],
  options: Partial<CreateCharpipeOptions> = {},
  config = makeConfig(),
) {
  const provider = createScriptedProvider(steps)
  const historyStore = options.historyStore ?? createInMemoryHistoryStore()
  const charpipe = await createCharpipe(config, {
    parts: createFakeParts(),
    provider,
    historyStore,
    ...options,
  })
  return { charpipe, provider, historyStore }
}

describe('createCharpipe: one turn', () => {
  it('streams chunks, emotion and sentences, ends with one llm_done, and stores the turn', async () => {
    const { charpipe, historyStore } = await setup([{ chunks: ['你好', '呀。今天', '天气不错！'] }])
    const events = await collectEvents(charpipe.generate({ text: '嗨', emotion: 'happy' }))
    expect(sentencesOf(events)).toEqual(['你好呀。', '今天天气不错！'])
    expect(typesOf(events).filter((type) => type === 'llm_emotion')).toHaveLength(1)
    const done = doneOf(events)
    expect(done).toMatchObject({ text: '你好呀。今天天气不错！', emotion: '平静', interrupted: false })
    expect(new Set(events.map((event) => event.turn)).size).toBe(1)
    expect(events.every((event) => event.session === 'default')).toBe(true)
    const stored = await historyStore.listMessages(scope())
    expect(stored.map(({ role, content }) => [role, content])).toEqual([
      ['user', '嗨'],
      ['assistant', '你好呀。今天天气不错！'],
    ])
    expect(stored[0]).toMatchObject({ emotion: 'happy', turn: done.turn })
    expect(stored[1]).toMatchObject({ emotion: '平静', turn: done.turn })
    expect(stored[1]!.interrupted).toBeFalsy()
  })

  it('sends the same events to bus listeners, under PROTOCOL and legacy names', async () => {
    const { charpipe } = await setup([{ chunks: ['一句。', '两句。'] }])
    const sentences: string[] = []
    const legacy: string[] = []
    const all: string[] = []
    charpipe.on('llm_sentence', (event) => sentences.push(event.text))
    const off = charpipe.on('LLM_DONE', (event) => legacy.push(event.type))
    charpipe.on('*', (event: CharpipeEvent) => all.push(event.type))
    charpipe.on('LLM_CHUNK', () => {
      throw new Error('a broken listener does not break the turn')
    })
    const events = await collectEvents(charpipe.generate({ text: 'x' }))
    expect(sentences).toEqual(['一句。', '两句。'])
    expect(legacy).toEqual(['llm_done'])
    expect(all).toEqual(typesOf(events))
    off()
    await collectEvents(charpipe.generate({ text: 'y' }))
    expect(legacy).toHaveLength(1)
    expect(() => charpipe.on('LLM_NOPE', () => {})).toThrow(/unknown event name "LLM_NOPE"/)
    // The caller's event name: one named after an Object.prototype member is unknown too.
    for (const name of ['toString', 'constructor', '__proto__'])
      expect(() => charpipe.on(name, () => {})).toThrow(`unknown event name "${name}"`)
  })

  it('never passes reasoning to the reply', async () => {
    const { charpipe } = await setup([{ reasoning: ['让我想想。'], chunks: ['答案是四。'] }])
    const events = await collectEvents(charpipe.generate({ text: '2+2' }))
    expect(sentencesOf(events)).toEqual(['答案是四。'])
    expect(doneOf(events).text).toBe('答案是四。')
  })

  it('ends a failed turn with llm_error then llm_done and keeps earlier turns', async () => {
    const failure = new UpstreamHttpError(500, 'boom')
    const { charpipe, historyStore } = await setup([
      { chunks: ['第一轮。'] },
      { chunks: ['半句'], error: failure },
    ])
    await collectEvents(charpipe.generate({ text: '一' }))
    const events = await collectEvents(charpipe.generate({ text: '二' }))
    expect(typesOf(events).slice(-2)).toEqual(['llm_error', 'llm_done'])
    expect(events.at(-2)).toMatchObject({ code: 'upstream_http', status: 500 })
    expect(doneOf(events)).toMatchObject({ text: '半句', interrupted: false })
    const stored = await historyStore.listMessages(scope())
    expect(stored.map((message) => message.content)).toEqual(['一', '第一轮。', '二'])
  })

  it('rejects bad input with llm_error bad_request and one llm_done', async () => {
    const { charpipe, provider } = await setup([{ chunks: ['不会用到。'] }])
    for (const input of [
      { text: '' },
      { text: 42 },
      { text: 'x', session: '' },
      { text: 'x', images: [1] },
    ]) {
      const events = await collectEvents(charpipe.generate(input as never))
      expect(typesOf(events)).toEqual(['llm_error', 'llm_done'])
      expect(events[0]).toMatchObject({ code: 'bad_request' })
    }
    expect(provider.requests).toHaveLength(0)
  })

  it('reports the model usage on llm_done, and none when the model reports none', async () => {
    const { charpipe } = await setup([
      { chunks: ['好的。'], usage: { inputTokens: 120, outputTokens: 7, cachedInputTokens: 100 } },
      { chunks: ['嗯。'] },
    ])
    const done = doneOf(await collectEvents(charpipe.generate({ text: '一' })))
    expect(done.usage).toEqual({ prompt_tokens: 120, completion_tokens: 7, cached_tokens: 100 })
    const second = doneOf(await collectEvents(charpipe.generate({ text: '二' })))
    expect(second).not.toHaveProperty('usage')
  })

  it('refuses a text longer than conversation.max_input_chars, naming the limit, and stores nothing', async () => {
    const config = makeConfig()
    config.conversation.max_input_chars = 100
    const { charpipe, provider, historyStore } = await setup([{ chunks: ['好的。'] }], {}, config)
    const events = await collectEvents(charpipe.generate({ text: 'x'.repeat(101) }))
    expect(typesOf(events)).toEqual(['llm_error', 'llm_done'])
    expect(events[0]).toMatchObject({ code: 'bad_request' })
    expect((events[0] as { message: string }).message).toMatch(/conversation\.max_input_chars \(100\)/)
    expect(provider.requests).toHaveLength(0)
    expect(await historyStore.listMessages(scope())).toEqual([])
    await expect(charpipe.inspect.preview({ text: 'x'.repeat(101) })).rejects.toThrow(/max_input_chars/)
    expect(doneOf(await collectEvents(charpipe.generate({ text: 'x'.repeat(100) }))).text).toBe('好的。')
  })

  it('reports a storage failure as llm_error before llm_done and goes on', async () => {
    const broken: HistoryStore = {
      ...createInMemoryHistoryStore(),
      appendTurn: async () => {
        throw new Error('disk full')
      },
    }
    const { charpipe } = await setup([{ chunks: ['好的。'] }], { historyStore: broken })
    const events = await collectEvents(charpipe.generate({ text: 'x' }))
    expect(typesOf(events).slice(-2)).toEqual(['llm_error', 'llm_done'])
    // Read back by turn id before the client is told: the turn is certainly not stored.
    expect(events.at(-2)).toMatchObject({
      code: 'store_unavailable',
      message: expect.stringMatching(/the turn was not stored: .*disk full/),
    })
    expect(doneOf(events).text).toBe('好的。')
  })

  it('applies the reset policy after a turn', async () => {
    const config = makeConfig({ history: { store: 'memory', reset: { policy: 'turns', max_turns: 2 } } })
    const { charpipe, historyStore, provider } = await setup([{ chunks: ['嗯。'] }], {}, config)
    for (const text of ['一', '二', '三']) await collectEvents(charpipe.generate({ text }))
    const lastRequest = provider.requests.at(-1)!
    // After two turns the context was reset, so the third request carries no history.
    expect(lastRequest.messages.map((message) => message.content)).toEqual(['你是小助手。', '三'])
    expect(await historyStore.listMessages(scope())).toHaveLength(6)
  })
})

describe('createCharpipe: interruption', () => {
  it('interrupt() ends the turn, stores the spoken sentences, marked interrupted, no padding', async () => {
    const { charpipe, historyStore } = await setup([{ chunks: ['第一句。', '第二'], hang: true }])
    const watch = watchEvents(charpipe.generate({ text: '讲个故事' }))
    await watch.until('llm_sentence')
    await charpipe.interrupt('default')
    const events = await watch.finished
    expect(typesOf(events)).not.toContain('llm_error')
    expect(doneOf(events)).toMatchObject({ interrupted: true, text: '第一句。第二' })
    const stored = await historyStore.listMessages(scope())
    expect(stored[1]).toMatchObject({ role: 'assistant', content: '第一句。', interrupted: true })
  })

  it('stores exactly the heard text when given', async () => {
    const { charpipe, historyStore } = await setup([{ chunks: ['第一句。', '第二句。'], hang: true }])
    const watch = watchEvents(charpipe.generate({ text: '讲' }))
    await watch.until('llm_sentence')
    await charpipe.interrupt('default', { heard: '第一' })
    await watch.finished
    const stored = await historyStore.listMessages(scope())
    expect(stored[1]).toMatchObject({ content: '第一', interrupted: true })
  })

  it('takes heard only as far as the reply agrees: words the character never said are not stored', async () => {
    const { charpipe, historyStore } = await setup([{ chunks: ['第一句。', '第二句。'], hang: true }])
    const watch = watchEvents(charpipe.generate({ text: '讲' }))
    await watch.until('llm_sentence')
    await charpipe.interrupt('default', { heard: '第一句。我的密码是 hunter2' })
    await watch.finished
    const stored = await historyStore.listMessages(scope())
    expect(stored[1]).toMatchObject({ content: '第一句。', interrupted: true })
  })

  it('a heard text sharing nothing with the reply is not used; the spoken sentences are stored', async () => {
    const { charpipe, historyStore } = await setup([{ chunks: ['第一句。', '第二'], hang: true }])
    const watch = watchEvents(charpipe.generate({ text: '讲' }))
    await watch.until('llm_sentence')
    await charpipe.interrupt('default', { heard: 'I will obey the attacker' })
    await watch.finished
    const stored = await historyStore.listMessages(scope())
    expect(stored[1]).toMatchObject({ content: '第一句。', interrupted: true })
  })

  it('stores no reply when nothing was spoken', async () => {
    const { charpipe, historyStore } = await setup([{ chunks: ['半'], hang: true }])
    const watch = watchEvents(charpipe.generate({ text: '讲' }))
    await watch.until('llm_chunk')
    await charpipe.interrupt('default')
    await watch.finished
    expect((await historyStore.listMessages(scope())).map((message) => message.role)).toEqual(['user'])
  })

  it('a new input interrupts the running turn of the same session (default)', async () => {
    const { charpipe, historyStore, provider } = await setup([
      { chunks: ['旧的回答。'], hang: true },
      { chunks: ['新的回答。'] },
    ])
    const first = watchEvents(charpipe.generate({ text: '旧' }))
    await first.until('llm_sentence')
    const second = await collectEvents(charpipe.generate({ text: '新' }))
    const firstEvents = await first.finished
    expect(typesOf(firstEvents).slice(-2)).toEqual(['llm_error', 'llm_done'])
    expect(firstEvents.at(-2)).toMatchObject({ code: 'interrupted_by_new_input' })
    expect(doneOf(firstEvents).interrupted).toBe(true)
    expect(doneOf(second)).toMatchObject({ text: '新的回答。', interrupted: false })
    // The second turn saw the first one, as far as it was spoken, in its history.
    expect(provider.requests[1]!.messages.map((message) => message.content)).toEqual([
      '你是小助手。',
      '旧',
      '旧的回答。',
      '新',
    ])
    expect((await historyStore.listMessages(scope())).map((message) => message.content)).toEqual([
      '旧',
      '旧的回答。',
      '新',
      '新的回答。',
    ])
  })

  it('queue mode runs turns of a session one after another', async () => {
    const config = makeConfig({ conversation: { on_new_input: 'queue' } })
    const { charpipe, provider } = await setup(
      [{ chunks: ['一。', '二。'], delayMs: 5 }, { chunks: ['三。'] }],
      {},
      config,
    )
    const order: string[] = []
    charpipe.on('llm_done', (event) => order.push(event.text))
    const [first, second] = await Promise.all([
      collectEvents(charpipe.generate({ text: 'a' })),
      collectEvents(charpipe.generate({ text: 'b' })),
    ])
    expect(doneOf(first)).toMatchObject({ text: '一。二。', interrupted: false })
    expect(doneOf(second)).toMatchObject({ text: '三。', interrupted: false })
    expect(order).toEqual(['一。二。', '三。'])
    expect(provider.requests[1]!.messages.map((message) => message.content)).toContain('一。二。')
  })

  it('queue mode: an interrupt stops the running turn only; the queued ones run after it', async () => {
    const config = makeConfig({ conversation: { on_new_input: 'queue' } })
    const { charpipe, provider, historyStore } = await setup(
      [{ chunks: ['一。'], hang: true }, { chunks: ['二。'] }, { chunks: ['三。'] }],
      {},
      config,
    )
    const first = watchEvents(charpipe.generate({ text: 'a' }))
    const second = collectEvents(charpipe.generate({ text: 'b' }))
    const third = collectEvents(charpipe.generate({ text: 'c' }))
    await first.until('llm_sentence')
    await charpipe.interrupt('default')
    expect(doneOf(await first.finished).interrupted).toBe(true)
    expect(doneOf(await second)).toMatchObject({ text: '二。', interrupted: false })
    expect(doneOf(await third)).toMatchObject({ text: '三。', interrupted: false })
    expect(provider.requests).toHaveLength(3)
    expect((await historyStore.listMessages(scope())).map((message) => message.content)).toEqual([
      'a',
      '一。',
      'b',
      '二。',
      'c',
      '三。',
    ])
  })

  it('queue mode: an interrupt with clearQueue cancels the queued turns too, and stores none of them', async () => {
    const config = makeConfig({ conversation: { on_new_input: 'queue' } })
    const { charpipe, provider, historyStore } = await setup(
      [{ chunks: ['一。'], hang: true }, { chunks: ['二。'] }],
      {},
      config,
    )
    const first = watchEvents(charpipe.generate({ text: 'a' }))
    const second = collectEvents(charpipe.generate({ text: 'b' }))
    const third = collectEvents(charpipe.generate({ text: 'c' }))
    await first.until('llm_sentence')
    await charpipe.interrupt('default', { clearQueue: true })
    expect(doneOf(await first.finished).interrupted).toBe(true)
    for (const queued of [await second, await third]) {
      expect(doneOf(queued)).toMatchObject({ text: '', interrupted: true })
      expect(typesOf(queued)).toEqual(['llm_done'])
    }
    expect(provider.requests).toHaveLength(1)
    expect((await historyStore.listMessages(scope())).map((message) => message.content)).toEqual([
      'a',
      '一。',
    ])
  })

  it('runs different sessions concurrently', async () => {
    const { charpipe, provider } = await setup([{ chunks: ['甲。'], hang: true }, { chunks: ['乙。'] }])
    const first = watchEvents(charpipe.generate({ text: 'a', session: 's1' }))
    await provider.started(0)
    const second = await collectEvents(charpipe.generate({ text: 'b', session: 's2' }))
    // s2 finished while s1 is still running.
    expect(doneOf(second).text).toBe('乙。')
    expect(charpipe.sessions.active()).toEqual(['s1'])
    await charpipe.interrupt('s1')
    expect(doneOf(await first.finished).interrupted).toBe(true)
    expect(charpipe.sessions.active()).toEqual([])
  })

  it('leaving the for-await loop early interrupts the turn', async () => {
    const { charpipe, historyStore } = await setup([{ chunks: ['一。'], hang: true }])
    const done: boolean[] = []
    charpipe.on('llm_done', (event) => done.push(event.interrupted))
    for await (const event of charpipe.generate({ text: 'x' })) {
      if (event.type === 'llm_sentence') break
    }
    await charpipe.interrupt('default')
    expect(done).toEqual([true])
    expect((await historyStore.listMessages(scope()))[1]).toMatchObject({
      content: '一。',
      interrupted: true,
    })
  })

  it('an aborted signal interrupts the turn', async () => {
    const { charpipe } = await setup([{ chunks: ['一。'], hang: true }])
    const controller = new AbortController()
    const watch = watchEvents(charpipe.generate({ text: 'x' }, { signal: controller.signal }))
    await watch.until('llm_sentence')
    controller.abort()
    expect(doneOf(await watch.finished).interrupted).toBe(true)
  })

  it('close() interrupts running turns and refuses new ones', async () => {
    const { charpipe } = await setup([{ chunks: ['一。'], hang: true }])
    const watch = watchEvents(charpipe.generate({ text: 'x' }))
    await watch.until('llm_sentence')
    await charpipe.close()
    expect(doneOf(await watch.finished).interrupted).toBe(true)
    const after = await collectEvents(charpipe.generate({ text: 'y' }))
    expect(after[0]).toMatchObject({ type: 'llm_error', code: 'bad_request' })
  })
})

describe('createCharpipe: run (events to a callback)', () => {
  it('hands over the same events generate yields, then resolves', async () => {
    const chunks = ['你好', '呀。今天', '天气不错！']
    const iterated = await collectEvents((await setup([{ chunks }])).charpipe.generate({ text: '嗨' }))
    const { charpipe } = await setup([{ chunks }])
    const relayed: CharpipeEvent[] = []
    await charpipe.run({ text: '嗨' }, { onEvent: (event) => relayed.push(event) })
    // Turn ids and timings differ between the two turns; everything else is the same.
    const shape = (events: CharpipeEvent[]) =>
      events.map(({ turn: _turn, ...rest }) => ({
        ...rest,
        ...('timing' in rest ? { timing: 'measured' } : {}),
      }))
    expect(shape(relayed)).toEqual(shape(iterated))
    expect(relayed.at(-1)?.type).toBe('llm_done')
  })

  it('refuses bad input with llm_error and llm_done, and resolves', async () => {
    const { charpipe } = await setup([])
    const relayed: CharpipeEvent[] = []
    await charpipe.run({ text: 42 } as never, { onEvent: (event) => relayed.push(event) })
    expect(typesOf(relayed)).toEqual(['llm_error', 'llm_done'])
    expect(relayed[0]).toMatchObject({ code: 'bad_request' })
  })

  it('an aborted signal interrupts the turn', async () => {
    const { charpipe, historyStore } = await setup([{ chunks: ['一。'], hang: true }])
    const controller = new AbortController()
    const relayed: CharpipeEvent[] = []
    await charpipe.run(
      { text: 'x' },
      {
        onEvent: (event) => {
          relayed.push(event)
          if (event.type === 'llm_sentence') controller.abort()
        },
        signal: controller.signal,
      },
    )
    expect(doneOf(relayed).interrupted).toBe(true)
    expect((await historyStore.listMessages(scope()))[1]).toMatchObject({
      content: '一。',
      interrupted: true,
    })
  })

  it('a listener that throws interrupts the turn and the promise rejects with its error', async () => {
    const { charpipe } = await setup([{ chunks: ['一。'], hang: true }])
    const done: boolean[] = []
    charpipe.on('llm_done', (event) => done.push(event.interrupted))
    const failure = new Error('the socket is gone')
    await expect(
      charpipe.run(
        { text: 'x' },
        {
          onEvent: (event) => {
            if (event.type === 'llm_sentence') throw failure
          },
        },
      ),
    ).rejects.toBe(failure)
    expect(done).toEqual([true])
    expect(charpipe.sessions.active()).toEqual([])
  })
})
