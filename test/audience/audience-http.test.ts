/**
 * The audience over HTTP and the owner's controls: `POST /api/sessions/:id/audience` on the chat
 * surface (202 {accepted, dropped}, a bad message refused naming the field), the live queue and
 * pin/drop on the admin surface only.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { createCharpipe } from '../../src/engine/index.js'
import { createManualClock } from '../../src/testing/index.js'
import { startTestServer, type TestServer } from '../server/start-test-server.js'
import { openTestSocket } from '../server/websocket-client.js'
import { createTimedProvider } from './timed-provider.js'

let server: TestServer | undefined
afterEach(async () => {
  await server?.stop()
  server = undefined
})

const message = (id: string, text: string, role = 'viewer') => ({
  id,
  speaker: { id: `u-${id}`, role },
  text,
})

async function start() {
  const clock = createManualClock()
  // The model never answers within the test: whatever is taken stays running, the rest waits.
  const provider = createTimedProvider({ clock, firstTokenMs: 3_600_000 })
  server = await startTestServer({
    configText: [
      'server: { token: chat-token, admin_token: admin-token }',
      'history: { store: memory }',
      'memory: { enabled: false }',
      'audience: { batch_max: 1, blocked_words: [forbidden] }',
    ].join('\n'),
    createCharpipe: (config, logger) => createCharpipe(config, { logger, provider, clock }),
  })
  return server
}

const call = (path: string, token: string, init: RequestInit = {}) =>
  fetch(`${server!.url}${path}`, {
    ...init,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...init.headers },
  })

describe('audience over HTTP', () => {
  it('accepts a batch with the chat token and reports what was dropped', async () => {
    await start()
    const posted = await call('/api/sessions/live/audience', 'chat-token', {
      method: 'POST',
      body: JSON.stringify({
        messages: [message('1', 'first'), message('2', 'so forbidden'), message('1', 'first again')],
      }),
    })
    expect(posted.status).toBe(202)
    expect(await posted.json()).toEqual({
      accepted: 1,
      dropped: [
        { id: '2', reason: 'blocked' },
        { id: '1', reason: 'duplicate' },
      ],
    })
    const bad = await call('/api/sessions/live/audience', 'chat-token', {
      method: 'POST',
      body: JSON.stringify({ messages: [{ id: 'x', speaker: { id: 'u', role: 'king' }, text: 'hi' }] }),
    })
    expect(bad.status).toBe(400)
    expect(JSON.stringify(await bad.json())).toMatch(/role/)
  })

  it('shows the live queue and lets only the admin pin or drop a message', async () => {
    await start()
    const socket = await openTestSocket(`${server!.url}/ws?token=admin-token`)
    socket.send({
      type: 'audience',
      session: 'live',
      messages: [message('a', 'taken first', 'owner'), message('b', 'plain'), message('c', 'another')],
    })
    const queue = async () => (await call('/api/sessions/live/audience', 'admin-token')).json()
    await expect.poll(async () => (await queue()).waiting.length).toBe(2)
    expect((await queue()).selected.map((entry: { id: string }) => entry.id)).toEqual(['a'])
    expect((await call('/api/sessions/live/audience', 'chat-token')).status).toBe(401)
    expect((await call('/api/sessions/live/audience/c/pin', 'chat-token', { method: 'POST' })).status).toBe(
      401,
    )
    expect((await call('/api/sessions/live/audience/c/pin', 'admin-token', { method: 'POST' })).status).toBe(
      204,
    )
    expect((await queue()).waiting[0]).toMatchObject({ id: 'c', pinned: true })
    expect((await call('/api/sessions/live/audience/b', 'admin-token', { method: 'DELETE' })).status).toBe(
      204,
    )
    expect((await call('/api/sessions/live/audience/b', 'admin-token', { method: 'DELETE' })).status).toBe(
      404,
    )
    const after = await queue()
    expect(after.waiting.map((entry: { id: string }) => entry.id)).toEqual(['c'])
    expect(after.dropped[0]).toMatchObject({ id: 'b', reason: 'moderated', text: 'plain' })
    // The connection that sent the frame follows the session: it hears of the drop.
    await socket.waitFor((frame) => frame.type === 'audience_dropped' && frame.reason === 'moderated')
    await socket.close()
  })
})
