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
})
