import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { type MockModelServer, startMockModelServer } from '../testing/start-mock-model-server.js'
import { createAnthropicProvider } from './create-anthropic-provider.js'
import { createOpenAICompatibleProvider } from './create-openai-compatible-provider.js'
import { isLargeDelta, maxDeltaChars, sliceText, yieldInSlices } from './slice-large-delta.js'
import { captureLogger, collectEvents } from './test-helpers.js'

describe('sliceText', () => {
  it('cuts a text into pieces of at most the limit that join back to it', () => {
    const text = 'abcdefghij'
    expect(sliceText(text, 4)).toEqual(['abcd', 'efgh', 'ij'])
    expect(sliceText(text, 10)).toEqual([text])
    expect(sliceText('', 4)).toEqual([])
  })

  it('never separates the two halves of a surrogate pair', () => {
    // '😀' is two UTF-16 units; a cut after 3 units would fall inside the second one.
    const text = 'ab😀😀cd'
    const slices = sliceText(text, 3)
    expect(slices.join('')).toBe(text)
    for (const slice of slices) {
      expect(slice.length).toBeLessThanOrEqual(3)
      expect(slice).toBe(Array.from(slice).join(''))
      expect(/[\ud800-\udbff]$/.test(slice)).toBe(false)
      expect(/^[\udc00-\udfff]/.test(slice)).toBe(false)
    }
  })

  it('refuses a limit that cannot hold a surrogate pair', () => {
    expect(() => sliceText('abc', 1)).toThrow(/limit must be an integer of at least 2, got 1/)
  })
})

describe('isLargeDelta', () => {
  it('picks text and reasoning deltas longer than the limit only', () => {
    const long = 'x'.repeat(maxDeltaChars + 1)
    expect(isLargeDelta({ type: 'text-delta', text: long })).toBe(true)
    expect(isLargeDelta({ type: 'reasoning-delta', text: long })).toBe(true)
    expect(isLargeDelta({ type: 'text-delta', text: 'x'.repeat(maxDeltaChars) })).toBe(false)
    expect(isLargeDelta({ type: 'finish', reason: 'stop' })).toBe(false)
  })
})

describe('yieldInSlices', () => {
  it('lets the event loop run between two slices', async () => {
    const seen: string[] = []
    for await (const slice of yieldInSlices({ type: 'text-delta', text: 'aaaabbbbcc' }, 4)) {
      seen.push(slice.text)
      // Runs only if the generator gives the event loop a turn before its next slice.
      setImmediate(() => seen.push('loop'))
    }
    expect(seen).toEqual(['aaaa', 'loop', 'bbbb', 'loop', 'cc'])
  })
})

describe('providers hand a huge delta on in slices', () => {
  let server: MockModelServer
  beforeAll(async () => {
    server = await startMockModelServer()
  })
  afterAll(() => server.close())
  beforeEach(() => server.reset())

  // One event of 3.5 slices of prose, with a surrogate pair at every slice boundary's neighbourhood.
  const text = '今天的海风有点凉😀我们去看灯塔吧。'.repeat(Math.ceil((maxDeltaChars * 3.5) / 18))
  const settings = { baseUrl: '', model: 'm', apiKey: 'k', logger: captureLogger().logger }

  it('OpenAI-compatible: every slice within the limit, the text whole', async () => {
    server.script({ text, chunkSize: text.length })
    const provider = createOpenAICompatibleProvider({
      ...settings,
      name: 'deepseek',
      apiType: 'openai',
      baseUrl: `${server.url}/v1`,
    })
    const result = await collectEvents(provider.streamChat({ messages: [{ role: 'user', content: 'hi' }] }))
    expect(result.error).toBeUndefined()
    const deltas = result.events.filter((event) => event.type === 'text-delta')
    expect(deltas.length).toBe(Math.ceil(text.length / maxDeltaChars))
    for (const delta of deltas) expect(delta.text.length).toBeLessThanOrEqual(maxDeltaChars)
    expect(result.text).toBe(text)
  })

  it('Anthropic: every slice within the limit, the text and the reasoning whole', async () => {
    server.script({ text, reasoning: text, chunkSize: text.length })
    const provider = createAnthropicProvider({
      ...settings,
      name: 'anthropic',
      apiType: 'anthropic',
      baseUrl: server.url,
    })
    const result = await collectEvents(provider.streamChat({ messages: [{ role: 'user', content: 'hi' }] }))
    expect(result.error).toBeUndefined()
    for (const event of result.events) {
      if (event.type === 'text-delta' || event.type === 'reasoning-delta')
        expect(event.text.length).toBeLessThanOrEqual(maxDeltaChars)
    }
    expect(result.text).toBe(text)
    expect(result.reasoning).toBe(text)
  })
})
