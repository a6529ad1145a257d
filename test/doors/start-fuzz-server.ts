/**
 * The server the fuzzed doors are fed through: the real engine over the mock model server, one
 * character, a chat token and the admin token, and limits far above what a batch of generated
 * cases asks, so a case reaches the parsers behind the limits instead of a rate refusal.
 */
import { expect, vi } from 'vitest'
import { type MockModelServer, startMockModelServer } from '../../src/testing/index.js'
import { startServerOverModel, type TestServer } from '../server/start-test-server.js'
import { sendRequest } from './send-request.js'
import type { ProcessHealth } from './watch-process-health.js'

export interface FuzzServer {
  model: MockModelServer
  server: TestServer
  url: string
  chatToken: string
  adminToken: string
  /**
   * After a batch: every turn it started has ended, the server still answers `/healthz`, and the
   * process was never held nor left a rejection unhandled.
   */
  expectHealthyAfter(batch: string, health: ProcessHealth): Promise<void>
  close(): Promise<void>
}

const chatToken = 'fuzz-chat-token-0123456789'
const adminToken = 'fuzz-admin-token-0123456789'

/** The safety bound on one hold of the event loop (a spinning parser holds it for good). */
const maxEventLoopDelayMs = 1000

/**
 * One ordinary turn through each kind of door before any batch is watched: the first turn loads
 * what the server loads once (the token counter's encoding, the routes' modules), which holds the
 * event loop for a while on a loaded machine and is no case's doing.
 */
async function warmUp(url: string) {
  const headers = { authorization: `Bearer ${chatToken}`, 'content-type': 'application/json' }
  const turns = [
    ['/api/chat', { session: 'fuzz-warm-up', text: 'hello there' }],
    [
      '/v1/chat/completions',
      { model: 'alice', stream: true, messages: [{ role: 'user', content: 'hello there' }] },
    ],
    ['/v1/responses', { model: 'alice', stream: true, input: 'hello there' }],
  ] as const
  for (const [path, body] of turns) {
    const answer = await sendRequest({
      url: `${url}${path}`,
      method: 'POST',
      headers,
      body: JSON.stringify(body),
    })
    expect(answer.status, `warm-up ${path}: ${answer.text.slice(0, 200)}`).toBe(200)
  }
}

/** `extraConfig`: lines of config.yaml added at the top level (a door that needs a feature on). */
export async function startFuzzServer(extraConfig: readonly string[] = []): Promise<FuzzServer> {
  const model = await startMockModelServer()
  const server = await startServerOverModel(model.url, [
    ...extraConfig,
    'characters:',
    '  alice: { name: Alice, persona: A cheerful guide. }',
    'audience:',
    '  reply: every',
    '  min_gap_ms: 0',
    'server:',
    `  token: ${chatToken}`,
    `  admin_token: ${adminToken}`,
    '  limits:',
    '    turns_per_minute: 100000',
    '    frames_per_second: 100000',
  ])
  await warmUp(server.url)
  return {
    model,
    server,
    url: server.url,
    chatToken,
    adminToken,
    async expectHealthyAfter(batch, health) {
      await vi.waitFor(() => expect(server.charpipe.sessions.active()).toEqual([]), {
        timeout: 60_000,
        interval: 20,
      })
      const answer = await sendRequest({ url: `${server.url}/healthz`, method: 'GET', headers: {} })
      expect(answer.status, `${batch}: the server answers /healthz`).toBe(200)
      expect(health.unhandledRejections, `${batch}: no rejection unhandled`).toEqual([])
      expect(health.maxDelayMs, `${batch}: the event loop was never held long`).toBeLessThan(
        maxEventLoopDelayMs,
      )
    },
    async close() {
      await server.stop()
      await model.close()
    },
  }
}
