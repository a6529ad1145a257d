/**
 * HTTP turn limits count per client address (the forwarded one behind `server.trusted_proxies`) and
 * session: users behind one proxy do not share one bucket, one user still meets the limit, and a
 * client that is not a trusted proxy cannot name itself someone else with `X-Forwarded-For`.
 */
import { describe, expect, it } from 'vitest'
import { useServersOverMockModel } from './use-servers-over-mock-model.js'

const suite = useServersOverMockModel()
const token = 'limits-token-0123456789'

/** A reply that takes about 20 s unless its request is dropped: every turn is running at once. */
const slowReply = { text: 'One long answer, word by word.', chunkSize: 1, delayMs: 700 }

/** Starts a streamed completion and resolves with its status once the answer has begun. */
async function startCompletion(headers: Record<string, string>): Promise<number> {
  const controller = new AbortController()
  suite.onCleanup(() => controller.abort())
  const response = await fetch(`${suite.server.url}/v1/chat/completions`, {
    method: 'POST',
    // A forwarded request needs a token (without one only this machine may connect).
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}`, ...headers },
    body: JSON.stringify({ model: 'm', stream: true, messages: [{ role: 'user', content: 'hi' }] }),
    signal: controller.signal,
  })
  if (response.status !== 200) await response.text()
  return response.status
}

describe('HTTP turn limits', () => {
  it('20 requests at once from 10 users behind one trusted proxy all start', async () => {
    await suite.start(['server:', `  token: ${token}`, '  trusted_proxies: ["127.0.0.1"]'])
    suite.model.script(Array.from({ length: 20 }, () => slowReply))
    const statuses = await Promise.all(
      Array.from({ length: 20 }, (_, index) =>
        startCompletion({
          'x-forwarded-for': `198.51.100.${index % 10}`,
          'x-session-id': `user-${index % 10}-chat-${index % 2}`,
        }),
      ),
    )
    expect(statuses.filter((status) => status === 429)).toEqual([])
    expect(statuses.every((status) => status === 200)).toBe(true)
  })

  it('one user past its turns in one session gets 429; its other session and another user do not', async () => {
    await suite.start([
      'server:',
      `  token: ${token}`,
      '  trusted_proxies: ["127.0.0.0/8"]',
      '  limits:',
      '    turns_per_minute: 2',
    ])
    const alice = { 'x-forwarded-for': '198.51.100.1', 'x-session-id': 'chat' }
    expect(await startCompletion(alice)).toBe(200)
    expect(await startCompletion(alice)).toBe(200)
    expect(await startCompletion(alice)).toBe(429)
    expect(await startCompletion({ ...alice, 'x-session-id': 'other-chat' })).toBe(200)
    expect(await startCompletion({ 'x-forwarded-for': '198.51.100.2', 'x-session-id': 'chat' })).toBe(200)
  })

  it('without trusted proxies X-Forwarded-For names no one', async () => {
    await suite.start(['server:', `  token: ${token}`, '  limits:', '    turns_per_minute: 1'])
    const session = { 'x-session-id': 'chat' }
    expect(await startCompletion({ ...session, 'x-forwarded-for': '198.51.100.1' })).toBe(200)
    expect(await startCompletion({ ...session, 'x-forwarded-for': '198.51.100.2' })).toBe(429)
  })

  it('one address meets ten times the limits across its sessions', async () => {
    await suite.start(['server:', `  token: ${token}`, '  limits:', '    turns_per_minute: 1'])
    const statuses: number[] = []
    for (let index = 0; index < 11; index++)
      statuses.push(await startCompletion({ 'x-session-id': `s${index}` }))
    expect(statuses).toEqual([...Array.from({ length: 10 }, () => 200), 429])
  })
})
