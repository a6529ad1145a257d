import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { type MockModelServer, startMockModelServer } from '../testing/start-mock-model-server.js'
import { createNodeFetch, takeNodeBody } from './create-node-fetch.js'

let server: MockModelServer
beforeAll(async () => {
  server = await startMockModelServer()
})
afterAll(() => server.close())

const originalFetch = globalThis.fetch
afterEach(() => {
  globalThis.fetch = originalFetch
})

describe('createNodeFetch when the application routes the global fetch', () => {
  it('sends through a global fetch the application replaced (a proxy, instrumentation)', async () => {
    const transport = createNodeFetch()
    const routed: string[] = []
    globalThis.fetch = (async (input: string | URL | Request, init?: RequestInit) => {
      routed.push(String(input))
      return originalFetch(input, init)
    }) as typeof fetch
    try {
      server.script({ text: '走代理。' })
      const response = await transport.fetch(`${server.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'm', stream: true, messages: [{ role: 'user', content: 'hi' }] }),
      })
      expect(routed).toEqual([`${server.url}/v1/chat/completions`])
      expect(takeNodeBody(response)).toBeUndefined()
      expect(await response.text()).toContain('走代理')
    } finally {
      transport.close()
    }
  })

  // undici 8 (Node 26) keeps the global dispatcher in slot 2; undici up to 7 and older copies in slot 1.
  for (const slot of [1, 2]) {
    it(`sends through the global fetch when a proxy dispatcher is in undici's global slot ${slot}`, async () => {
      const key = Symbol.for(`undici.globalDispatcher.${slot}`)
      const slots = globalThis as unknown as Record<symbol, unknown>
      const before = slots[key]
      class ProxyAgent {}
      slots[key] = new ProxyAgent()
      const routed: string[] = []
      // The fallback stands for the routed global fetch: it answers itself, the fake agent sends nothing.
      const transport = createNodeFetch(async (input) => {
        routed.push(String(input))
        return new Response('走代理。')
      })
      try {
        const response = await transport.fetch(`${server.url}/v1/chat/completions`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ model: 'm', stream: true, messages: [{ role: 'user', content: 'hi' }] }),
        })
        expect(routed).toEqual([`${server.url}/v1/chat/completions`])
        expect(takeNodeBody(response)).toBeUndefined()
        expect(await response.text()).toContain('走代理')
      } finally {
        slots[key] = before
        transport.close()
      }
    })
  }

  it('uses its own agents again once the global fetch is the builtin one', async () => {
    const transport = createNodeFetch()
    try {
      server.script({ text: '直连。' })
      const response = await transport.fetch(`${server.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'm', stream: true, messages: [{ role: 'user', content: 'hi' }] }),
      })
      const body = takeNodeBody(response)
      expect(body).toBeDefined()
      body!.resume()
    } finally {
      transport.close()
    }
  })

  it('bounds an answer of the fallback read whole, and leaves a streamed one as it is', async () => {
    const sent: string[] = []
    const transport = createNodeFetch(
      async (input) => {
        sent.push(String(input))
        if (String(input).endsWith('/stream'))
          return new Response('data: [DONE]\n\n', { headers: { 'content-type': 'text/event-stream' } })
        const endless = new ReadableStream<Uint8Array>({
          pull(controller) {
            controller.enqueue(new Uint8Array(64 * 1024).fill(0x20))
          },
        })
        return new Response(endless, { status: 200, headers: { 'content-type': 'application/json' } })
      },
      { maxAnswerBytes: 1024 * 1024 },
    )
    try {
      // A form body (an audio upload) is not sent by the transport's own agents.
      const form = new FormData()
      form.set('file', new Blob(['RIFF']), 'a.wav')
      const answer = await transport.fetch(`${server.url}/v1/audio/transcriptions`, {
        method: 'POST',
        body: form,
      })
      expect(answer.status).toBe(200)
      expect(answer.url).toBe('')
      await expect(answer.json()).rejects.toThrow("the upstream's answer passed 1048576 bytes: refused")
      const streamed = await transport.fetch(`${server.url}/stream`, { method: 'POST', body: form })
      expect(await streamed.text()).toBe('data: [DONE]\n\n')
      expect(sent).toEqual([`${server.url}/v1/audio/transcriptions`, `${server.url}/stream`])
    } finally {
      transport.close()
    }
  })
})
