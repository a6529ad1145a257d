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
