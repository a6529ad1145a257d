/**
 * `memory.extract: true` end to end: after a turn's `llm_done`, the configured model (the mock
 * model server) is asked for facts as JSON and its add / update / delete decisions are applied to
 * the long-term memory; a malformed, failed or late answer is logged and stores nothing, and the
 * extraction never shows in the turn's events nor holds up the session's next turn.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, beforeEach, describe, expect, it, onTestFinished, vi } from 'vitest'
import type { CharpipeConfigInput } from '../../src/config/schema.js'
import { factExtractionMarker } from '../../src/engine/create-model-fact-extractor.js'
import { createCharpipe } from '../../src/engine/index.js'
import { createSqliteMemoryStore } from '../../src/memory/index.js'
import type { MemoryStore } from '../../src/memory/types.js'
import { captureLogger } from '../../src/providers/test-helpers.js'
import { makeConfig } from '../../src/testing/create-turn-harness.js'
import type { MockReply, RecordedRequest } from '../../src/testing/index.js'
import { type MockModelServer, startMockModelServer } from '../../src/testing/index.js'
import { collectEvents, doneOf, typesOf } from '../../src/testing/turn-events.js'

let server: MockModelServer
let folder: string
let store: MemoryStore
/** What the model answers to an extraction request; a function sees the request (ids shown). */
let extractionReply: (request: RecordedRequest) => MockReply
/** Turn replies, one per turn request. */
let turnReplies: MockReply[]
const extractionRequests: RecordedRequest[] = []

function isExtraction(request: RecordedRequest): boolean {
  return JSON.stringify(request.body).includes(factExtractionMarker)
}

beforeAll(async () => {
  server = await startMockModelServer({
    respond: (request) => {
      if (!isExtraction(request)) return turnReplies.shift() ?? { text: '嗯。' }
      extractionRequests.push(request)
      return extractionReply(request)
    },
  })
  folder = mkdtempSync(join(tmpdir(), 'charpipe-extract-'))
})
afterAll(async () => {
  await server.close()
  rmSync(folder, { recursive: true, force: true })
})
beforeEach(async () => {
  server.reset()
  extractionRequests.length = 0
  turnReplies = []
  store = createSqliteMemoryStore({ path: ':memory:' })
})

function configWith(memory: CharpipeConfigInput['memory'] = {}) {
  return makeConfig({
    llm: { provider: 'custom', base_url: `${server.url}/v1`, model: 'm', max_retries: 0 },
    memory: { enabled: true, extract: true, ...memory },
  })
}

const json = (value: unknown): MockReply => ({ text: JSON.stringify(value), chunkSize: 7 })

async function storedTexts(scope: string): Promise<string[]> {
  return (await store.list({ scope })).map((memory) => memory.text).sort()
}

describe('fact extraction after a turn (memory.extract: true)', () => {
  it('adds, updates and deletes memories as the model decides, after llm_done', async () => {
    const red = await store.add({ scope: 's', text: '用户最喜欢的颜色是红色' })
    const shanghai = await store.add({ scope: 's', text: '用户住在上海' })
    let doneBeforeExtraction = false
    extractionReply = (request) => {
      const shown = JSON.stringify(request.body)
      // The model sees the related memories by id, and decides against them.
      return json({
        memory: [
          {
            event: 'update',
            id: shown.includes(red.id) ? red.id : 'missing',
            text: '用户最喜欢的颜色是蓝色',
          },
          { event: 'delete', id: shown.includes(shanghai.id) ? shanghai.id : 'missing' },
          { event: 'add', text: '用户住在北京' },
          { event: 'none', text: '' },
        ],
      })
    }
    turnReplies = [{ text: '蓝色很好看，北京见！', chunkSize: 3 }]
    const log = captureLogger()
    const charpipe = await createCharpipe(configWith(), { memoryStore: store, logger: log.logger })
    charpipe.on('llm_done', () => {
      doneBeforeExtraction = extractionRequests.length === 0
    })
    const events = await collectEvents(
      charpipe.generate({
        text: '我现在最喜欢的颜色是蓝色，不是红色了；我也不住上海了，搬到北京了',
        session: 's',
      }),
    )
    await charpipe.close()
    expect(doneOf(events).text).toBe('蓝色很好看，北京见！')
    expect(typesOf(events)).not.toContain('llm_error')
    expect(doneBeforeExtraction).toBe(true)
    expect(extractionRequests).toHaveLength(1)
    const body = extractionRequests[0]!.body as { messages: { role: string; content: string }[] }
    expect(body.messages.at(-1)!.content).toContain('用户: 我现在最喜欢的颜色是蓝色')
    expect(body.messages.at(-1)!.content).toContain('小助手: 蓝色很好看，北京见！')
    expect(await storedTexts('s')).toEqual(['用户住在北京', '用户最喜欢的颜色是蓝色'])
    expect((await store.get(red.id))?.text).toBe('用户最喜欢的颜色是蓝色')
  })

  it('accepts a fenced JSON list with words around it', async () => {
    extractionReply = () => ({
      text: '好的：\n```json\n[{"event": "add", "text": "用户养了一只猫"}]\n```\n以上。',
    })
    const charpipe = await createCharpipe(configWith(), { memoryStore: store })
    await collectEvents(charpipe.generate({ text: '我家的猫叫咪咪', session: 'cat' }))
    await charpipe.close()
    expect(await storedTexts('cat')).toEqual(['用户养了一只猫'])
  })

  it.each([
    ['a reply that is not JSON', { text: '好的，我记住了！' }],
    ['JSON of the wrong shape', json({ memory: [{ event: 'remember', text: '用户喜欢茶' }] })],
    ['an HTTP error', { status: 500, body: { error: { message: 'exploded' } } }],
    [
      'a cut stream',
      { text: '{"memory": [{"event": "add", "text": "x"}]}', chunkSize: 4, breakAfterChunks: 3 },
    ],
  ] as [string, MockReply][])(
    'stores nothing extra after %s, logs it, and the next turn runs',
    async (_name, reply) => {
      extractionReply = () => reply
      turnReplies = [{ text: '好的。' }, { text: '第二轮。' }]
      const log = captureLogger()
      const charpipe = await createCharpipe(configWith(), { memoryStore: store, logger: log.logger })
      const first = await collectEvents(charpipe.generate({ text: '我喜欢喝茶', session: 'bad' }))
      const second = await collectEvents(charpipe.generate({ text: '还有呢', session: 'bad' }))
      await charpipe.close()
      expect(typesOf(first)).not.toContain('llm_error')
      expect(doneOf(second).text).toBe('第二轮。')
      expect(extractionRequests).toHaveLength(2)
      expect(await storedTexts('bad')).toEqual([])
      const warning = log.lines.find((line) => /fact extraction failed/.test(line.msg))
      expect(warning).toBeDefined()
      expect(String(warning?.reason)).not.toBe('')
    },
  )

  it('does not hold up the next turn of the session, and gives up at its own timeout', async () => {
    extractionReply = () => ({ text: '{"memory": []}', firstTokenDelayMs: 20_000 })
    turnReplies = [{ text: '第一轮。' }, { text: '第二轮。' }]
    const log = captureLogger()
    // The engine's timers are fake: the extractions' 1500 ms pass only when the test says so, however
    // long the turns take on a busy machine. (Sockets and the mock server's pacing stay real.)
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval'] })
    onTestFinished(() => {
      vi.useRealTimers()
    })
    const charpipe = await createCharpipe(configWith({ extract_timeout_ms: 1500 }), {
      memoryStore: store,
      logger: log.logger,
    })
    await collectEvents(charpipe.generate({ text: '你好', session: 'slow' }))
    let extractionOpen = false
    const second = await collectEvents(charpipe.generate({ text: '在吗', session: 'slow' }))
    // The first turn's extraction request was still waiting for its answer when turn two ended.
    extractionOpen = extractionRequests.length >= 1 && !extractionRequests[0]!.closedEarly
    expect(doneOf(second).text).toBe('第二轮。')
    expect(extractionOpen).toBe(true)
    // Its time runs out; then the second turn's extraction, queued behind it, runs out its own.
    await vi.advanceTimersByTimeAsync(1500)
    await extractionRequests[0]!.closed
    await expect.poll(() => extractionRequests.length).toBe(2)
    await vi.advanceTimersByTimeAsync(1500)
    await charpipe.close()
    expect(extractionRequests[0]!.closedEarly).toBe(true)
    const warning = log.lines.find((line) => /fact extraction failed/.test(line.msg))
    expect(warning?.reason).toBe('no answer within 1500 ms')
    expect(await storedTexts('slow')).toEqual([])
  })

  it('stores the raw turn, with no extraction request, when extract is off', async () => {
    turnReplies = [{ text: '记下了。' }]
    const charpipe = await createCharpipe(configWith({ extract: false }), { memoryStore: store })
    await collectEvents(charpipe.generate({ text: '我的生日是五月一日', session: 'raw' }))
    await charpipe.close()
    expect(extractionRequests).toHaveLength(0)
    expect((await storedTexts('raw'))[0]).toContain('我的生日是五月一日')
  })
})
