/**
 * The library path of preflight (`generate` with `preflight: true`) against the mock model server.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import type { CharpipeConfigInput } from '../../config/schema.js'
import type { CharpipeEvent } from '../../shared/events.js'
import { makeConfig } from '../../testing/create-turn-harness.js'
import { type MockModelServer, startMockModelServer } from '../../testing/index.js'
import { collectEvents, doneOf, sentencesOf } from '../../testing/turn-events.js'
import { createCharpipe } from '../create-charpipe.js'

let model: MockModelServer

beforeAll(async () => {
  model = await startMockModelServer()
})
afterAll(async () => {
  await model.close()
})
beforeEach(() => model.reset())

const patience = { timeout: 5000 }

function configOver(overrides: CharpipeConfigInput = {}) {
  return makeConfig({
    llm: { provider: 'custom', base_url: `${model.url}/v1`, model: 'm', max_retries: 0 },
    ...overrides,
  })
}

describe('createCharpipe input with preflight: true', () => {
  it('yields nothing for the early transcript; the final one yields the prepared turn, stored once with its text', async () => {
    const charpipe = await createCharpipe(configOver())
    const heard: CharpipeEvent[] = []
    charpipe.on('llm_sentence', (event) => heard.push(event))
    model.script({ text: '我在呢。有什么事？', firstTokenDelayMs: 200 })
    expect(
      await collectEvents(charpipe.generate({ session: 's', text: 'Hello 在吗', preflight: true })),
    ).toEqual([])
    await expect.poll(() => model.requests.length, patience).toBe(1)
    await model.requests[0]!.closed
    expect(heard).toEqual([])

    // Full-width letters, case and punctuation do not count.
    const events = await collectEvents(charpipe.generate({ session: 's', text: 'ｈｅｌｌｏ，在吗？' }))
    expect(sentencesOf(events)).toEqual(['我在呢。', '有什么事？'])
    expect(new Set(events.map((event) => event.turn)).size).toBe(1)
    expect(doneOf(events).timing?.preflight_saved_ms).toBeTypeOf('number')
    expect(heard).toHaveLength(2)
    expect(model.requests).toHaveLength(1)
    const history = await charpipe.sessions.history({ session: 's' })
    expect(history.map((message) => message.content)).toEqual(['ｈｅｌｌｏ，在吗？', '我在呢。有什么事？'])
    expect(charpipe.inspect.preflight?.()).toMatchObject({ started: 1, adopted: 1, wastedRequests: 0 })
    await charpipe.close()
  })

  it('adopted while still streaming: the held events and the live ones follow in order, none lost or doubled', async () => {
    const charpipe = await createCharpipe(configOver())
    const text = '第一句话。第二句话。第三句话。第四句话。'
    model.script({ text, chunkSize: 1, delayMs: 25, firstTokenDelayMs: 50 })
    await collectEvents(charpipe.generate({ session: 'm', text: '说四句', preflight: true }))
    await expect.poll(() => model.requests.length, patience).toBe(1)
    // Part of the reply is prepared (held), the rest arrives after the final input.
    await expect.poll(() => model.requests[0]!.sentEvents, patience).toBeGreaterThanOrEqual(4)
    const events = await collectEvents(charpipe.generate({ session: 'm', text: '说四句。' }))
    const chunks = events.flatMap((event) => (event.type === 'llm_chunk' ? [event.text] : []))
    expect(chunks.join('')).toBe(text)
    expect(events.flatMap((event) => (event.type === 'llm_sentence' ? [event.index] : []))).toEqual([
      0, 1, 2, 3,
    ])
    expect(doneOf(events)).toMatchObject({ text, interrupted: false })
    expect(model.requests[0]!.closedEarly).toBe(false)
    await charpipe.close()
  })

  it('other final words abort the prepared request and answer the final text', async () => {
    const charpipe = await createCharpipe(configOver({ conversation: { on_new_input: 'queue' } }))
    model.script([{ text: '猫。', firstTokenDelayMs: 5000 }, { text: '狗。' }])
    await collectEvents(charpipe.generate({ session: 'c', text: '我喜欢猫', preflight: true }))
    await expect.poll(() => model.requests.length, patience).toBe(1)
    const events = await collectEvents(charpipe.generate({ session: 'c', text: '我喜欢狗' }))
    expect(doneOf(events)).toMatchObject({ text: '狗。', interrupted: false })
    await model.requests[0]!.closed
    expect(model.requests[0]!.closedEarly).toBe(true)
    expect((await charpipe.sessions.history({ session: 'c' })).map((message) => message.content)).toEqual([
      '我喜欢狗',
      '狗。',
    ])
    await expect
      .poll(() => charpipe.inspect.preflight?.(), patience)
      .toMatchObject({ dropped: { changed: 1 }, wastedRequests: 1 })
    await charpipe.close()
  })

  it('an interrupt does not drop a prepared turn (it is not a reply yet); a refused input says why', async () => {
    const charpipe = await createCharpipe(configOver())
    model.script({ text: '好。', firstTokenDelayMs: 100 })
    await collectEvents(charpipe.generate({ session: 'i', text: '开始吧', preflight: true }))
    await expect.poll(() => model.requests.length, patience).toBe(1)
    await charpipe.interrupt('i')
    expect(charpipe.sessions.active()).toEqual([])
    const events = await collectEvents(charpipe.generate({ session: 'i', text: '开始吧' }))
    expect(doneOf(events)).toMatchObject({ text: '好。', interrupted: false })
    expect(model.requests).toHaveLength(1)

    const refused = await collectEvents(charpipe.generate({ session: 'i', text: '', preflight: true }))
    expect(refused[0]).toMatchObject({ type: 'llm_error', code: 'bad_request' })
    await charpipe.close()
  })

  it('close() drops a prepared turn without a trace', async () => {
    const charpipe = await createCharpipe(configOver())
    model.script({ text: '不会说出来。', firstTokenDelayMs: 5000 })
    await collectEvents(charpipe.generate({ session: 'x', text: '再见', preflight: true }))
    await expect.poll(() => model.requests.length, patience).toBe(1)
    const history = charpipe.sessions.history({ session: 'x' })
    await charpipe.close()
    expect(await history).toEqual([])
    await model.requests[0]!.closed
    expect(model.requests[0]!.closedEarly).toBe(true)
  })
})
