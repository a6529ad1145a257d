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

export async function startFuzzServer(): Promise<FuzzServer> {
  const model = await startMockModelServer()
  const server = await startServerOverModel(model.url, [
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
  ])
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
