/**
 * Images for a chat model without vision, end to end against the mock model server: with
 * `llm.vision_describer` the image is described by the vision model first and the chat model gets
 * `[图片:描述]` in the user message; without one, today's placeholder; a failed or interrupted
 * description never breaks the turn.
 */
import { randomBytes } from 'node:crypto'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import type { CharpipeConfigInput } from '../../src/config/schema.js'
import { createCharpipe } from '../../src/engine/index.js'
import { waitUntil } from '../../src/providers/test-helpers.js'
import { makeConfig } from '../../src/testing/create-turn-harness.js'
import type { MockModelServer } from '../../src/testing/index.js'
import { startMockModelServer } from '../../src/testing/index.js'
import { collectEvents, doneOf, watchEvents } from '../../src/testing/turn-events.js'

let server: MockModelServer
beforeAll(async () => {
  server = await startMockModelServer()
})
afterAll(() => server.close())
beforeEach(() => server.reset())

/** A new image each time: descriptions are cached by image. */
function newImage(): string {
  return `data:image/png;base64,${randomBytes(24).toString('base64')}`
}

function configWith(llm: NonNullable<CharpipeConfigInput['llm']> = {}) {
  return makeConfig({
    llm: {
      provider: 'custom',
      base_url: `${server.url}/v1`,
      model: 'chat-model',
      max_retries: 0,
      vision: false,
      vision_describer: { provider: 'custom', base_url: `${server.url}/v1`, model: 'vision-model' },
      ...llm,
    },
  })
}

type Body = { model: string; messages: { role: string; content: unknown }[] }
const bodyOf = (index: number) => server.requests[index]!.body as Body
const lastUserOf = (body: Body) =>
  JSON.stringify(body.messages.filter((message) => message.role === 'user').at(-1))

describe('images for a chat model without vision', () => {
  it('sends [图片:<description>] from the vision model in the user message', async () => {
    const image = newImage()
    server.script([{ text: '一只橘猫趴在窗台上晒太阳', chunkSize: 4 }, { text: '好可爱的猫！' }])
    const charpipe = await createCharpipe(configWith())
    const events = await collectEvents(charpipe.generate({ text: '看看我的猫', images: [image] }))
    await charpipe.close()
    expect(doneOf(events).text).toBe('好可爱的猫！')
    expect(server.requests).toHaveLength(2)
    expect(bodyOf(0).model).toBe('vision-model')
    expect(JSON.stringify(bodyOf(0).messages)).toContain(image)
    expect(bodyOf(1).model).toBe('chat-model')
    const user = lastUserOf(bodyOf(1))
    expect(user).toContain('[图片:一只橘猫趴在窗台上晒太阳]')
    expect(user).toContain('看看我的猫')
    expect(JSON.stringify(bodyOf(1))).not.toContain(image)
  })

  it('keeps the placeholder when no vision describer is configured', async () => {
    server.script({ text: '我看不到图片呢。' })
    const charpipe = await createCharpipe(configWith({ vision_describer: null }))
    await collectEvents(charpipe.generate({ text: '看', images: [newImage()] }))
    await charpipe.close()
    expect(server.requests).toHaveLength(1)
    expect(lastUserOf(bodyOf(0))).toContain('[图片:当前模型看不到图片，且未配置图片描述]')
  })

  it('sends the image itself to a model with vision, without describing it', async () => {
    const image = newImage()
    server.script({ text: '看到了。' })
    const charpipe = await createCharpipe(configWith({ vision: true }))
    await collectEvents(charpipe.generate({ text: '看', images: [image] }))
    await charpipe.close()
    expect(server.requests).toHaveLength(1)
    expect(lastUserOf(bodyOf(0))).toContain(image)
  })

  it('a failed description becomes a placeholder and the turn goes on', async () => {
    server.script([{ status: 500, body: { error: { message: 'vision down' } } }, { text: '嗯。' }])
    const charpipe = await createCharpipe(configWith())
    const events = await collectEvents(charpipe.generate({ text: '看', images: [newImage()] }))
    await charpipe.close()
    expect(doneOf(events).text).toBe('嗯。')
    expect(lastUserOf(bodyOf(1))).toContain('[图片:描述失败]')
  })

  it("an interrupt while the image is being described closes the vision model's request", async () => {
    server.script({ text: '很慢的描述', firstTokenDelayMs: 10_000 })
    const charpipe = await createCharpipe(configWith())
    const watch = watchEvents(charpipe.generate({ text: '看', images: [newImage()] }))
    await waitUntil(() => server.requests.length === 1, 'the description was asked for')
    await charpipe.interrupt('default')
    const events = await watch.finished
    expect(doneOf(events).interrupted).toBe(true)
    await server.requests[0]!.closed
    expect(server.requests[0]!.closedEarly).toBe(true)
    expect(server.requests).toHaveLength(1)
    await charpipe.close()
  })
})
