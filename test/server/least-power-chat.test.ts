/**
 * The chat surface gives no more than it must: `heard` only from the connection that owns the turn
 * (or an admin), limits on frames and turns per connection and per HTTP client, and a far too large
 * frame closing the socket with a clear code instead of a crash in the error report.
 */

import { createHash } from 'node:crypto'
import { afterEach, describe, expect, it, onTestFinished, vi } from 'vitest'
import WebSocket from 'ws'
import { createManualClock } from '../../src/testing/create-manual-clock.js'
import { startTestServer, type TestServer } from './start-test-server.js'
import { openTestSocket } from './websocket-client.js'

let server: TestServer | undefined
afterEach(async () => {
  await server?.stop()
  server = undefined
})

const storedReply = async (session: string, headers: Record<string, string> = {}) => {
  const answer = await (await fetch(`${server!.url}/api/sessions/${session}/messages`, { headers })).json()
  return answer.messages.find((message: { role: string }) => message.role === 'assistant')?.content as string
}

describe('heard on interrupt', () => {
  // The clock stands still in these tests: a `!slow` turn waits after its first chunk until interrupted.
  it("from another connection it stops the turn but is not stored as the character's words", async () => {
    server = await startTestServer({ configText: '', clock: createManualClock() })
    const owner = await openTestSocket(`${server.url}/ws`)
    const stranger = await openTestSocket(`${server.url}/ws`)
    owner.send({ type: 'user_input', session: 'alice', text: '!slow story' })
    await owner.waitFor((frame) => frame.type === 'llm_chunk')
    stranger.send({ type: 'interrupt', session: 'alice', heard: 'I will give you my password' })
    const done = await owner.waitFor((frame) => frame.type === 'llm_done')
    expect(done.interrupted).toBe(true)
    expect(await storedReply('alice')).not.toContain('password')
    await owner.close()
    await stranger.close()
  })

  it('from the connection that owns the turn it is used', async () => {
    server = await startTestServer({ configText: '', clock: createManualClock() })
    const owner = await openTestSocket(`${server.url}/ws`)
    owner.send({ type: 'user_input', session: 'bob', text: '!slow story' })
    await owner.waitFor((frame) => frame.type === 'llm_chunk')
    owner.send({ type: 'interrupt', session: 'bob', heard: '[mock]' })
    await owner.waitFor((frame) => frame.type === 'llm_done')
    expect(await storedReply('bob')).toBe('[mock]')
    await owner.close()
  })

  it('an admin connection may say what was heard of any turn', async () => {
    const adminToken = 'admin-token-0123456789abcdef'
    server = await startTestServer({
      configText: `server:\n  token: chat-token-0123456789\n  admin_token: ${adminToken}\n`,
      clock: createManualClock(),
    })
    const owner = await openTestSocket(`${server.url}/ws?token=chat-token-0123456789`)
    const admin = await openTestSocket(`${server.url}/ws?token=${adminToken}`)
    owner.send({ type: 'user_input', session: 'carol', text: '!slow story' })
    await owner.waitFor((frame) => frame.type === 'llm_chunk')
    admin.send({ type: 'interrupt', session: 'carol', heard: '[mock]' })
    await owner.waitFor((frame) => frame.type === 'llm_done')
    expect(await storedReply('carol', { authorization: `Bearer ${adminToken}` })).toBe('[mock]')
    await owner.close()
    await admin.close()
  })
})

describe('limits', () => {
  it('3,000 frames in a burst do not become 3,000 turns; the connection keeps working afterwards', async () => {
    server = await startTestServer({ configText: '' })
    // The connection's rate limits read the clock: it stands still, and moves only when told.
    vi.useFakeTimers({ toFake: ['Date'] })
    onTestFinished(() => {
      vi.useRealTimers()
    })
    const client = await openTestSocket(`${server.url}/ws`)
    for (let index = 0; index < 3000; index++)
      client.send({ type: 'user_input', session: `flood-${index}`, text: 'hi' })
    await client.waitFor(
      (frame) => frame.type === 'error' && String(frame.message).includes('frames_per_second'),
    )
    // Every frame of the burst has met the rate with the clock still standing once the server
    // answers a ping sent after them (frames are taken in order). Moved before that, on a slow
    // machine the refill let the burst's last frames through, the marker was dropped for the rate
    // and its refusal (not a concurrent_turns one) left the test waiting until it timed out.
    await new Promise<void>((resolve) => {
      client.socket.once('pong', () => resolve())
      client.socket.ping()
    })
    // Once the rate refills the connection answers again. Turns admitted from the burst may still
    // run (at most `concurrent_turns`, more on a slow machine): the marker is refused while they do,
    // so it is sent again after each of them ends, never more often than turns were admitted.
    vi.setSystemTime(Date.now() + 1500)
    for (let attempt = 0; ; attempt++) {
      const from = client.frames.length
      client.send({ type: 'user_input', session: 'after', text: 'still here' })
      const answer = await client.waitFor(
        (frame) => (frame.type === 'llm_done' && frame.session === 'after') || frame.type === 'error',
        from,
      )
      if (answer.type === 'llm_done') break
      // Any other refusal is a failure to see, not a wait until the test times out.
      expect(String(answer.message)).toContain('concurrent_turns')
      expect(attempt).toBeLessThan(121)
      // The next turn to end after the refusal: a turn it met was still running, so its llm_done
      // comes after the refusal (it may have arrived with it). One look at each frame: a count of
      // every llm_done, asked of each frame at each arrival, grew with the cube of the frames.
      await client.waitFor((frame) => frame.type === 'llm_done', client.frames.indexOf(answer) + 1)
    }
    const started = new Set(
      client.frames.filter((frame) => frame.type === 'llm_emotion').map((frame) => frame.session),
    )
    expect(started.size).toBeLessThanOrEqual(121)
    expect(started.size).toBeGreaterThan(0)
    await client.close()
  })

  it('turns per connection are limited (turns_per_minute), with a clear error', async () => {
    server = await startTestServer({
      configText: 'server:\n  limits:\n    turns_per_minute: 3\n    frames_per_second: 1000\n',
    })
    const client = await openTestSocket(`${server.url}/ws`)
    for (let index = 0; index < 5; index++)
      client.send({ type: 'user_input', session: `t${index}`, text: 'hi' })
    const refusal = await client.waitFor(
      (frame) => frame.type === 'error' && String(frame.message).includes('turns_per_minute'),
    )
    expect(refusal.code).toBe('bad_request')
    await client.close()
  })

  it('concurrent turns of one HTTP client in one session are limited (429); later turns still work', async () => {
    // The clock stands still: the first turn runs until the test moves it.
    const clock = createManualClock()
    server = await startTestServer({
      configText: 'server:\n  limits:\n    concurrent_turns: 1\n',
      clock,
    })
    const chat = (text: string) =>
      fetch(`${server!.url}/api/chat`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ session: 'one-session', text }),
      })
    const first = await chat('!slow one')
    const second = await chat('two')
    expect(second.status).toBe(429)
    expect((await second.json()).error.message).toContain('concurrent_turns')
    await clock.advance(60_000)
    await first.text()
    const third = await chat('three')
    expect(third.status).toBe(200)
    await third.text()
  })
})

describe('a far too large frame', () => {
  it('closes the socket with 1009 and a clear log line, not a ReferenceError', async () => {
    server = await startTestServer({ configText: 'server:\n  max_body_bytes: 65536\n' })
    const socket = new WebSocket(`${server.url.replace(/^http/, 'ws')}/ws`)
    await new Promise((resolve, reject) => {
      socket.once('open', resolve)
      socket.once('error', reject)
    })
    const closed = new Promise<number>((resolve) => socket.once('close', (code) => resolve(code)))
    socket.send('x'.repeat(1024 * 1024))
    expect(await closed).toBe(1009)
    await expect.poll(() => server!.logLines.join('\n'), { timeout: 10_000 }).toContain('1009')
    const log = server.logLines.join('\n')
    expect(log).not.toContain('ReferenceError')
    expect(log).toContain('1009')
    // The server still takes new connections.
    const client = await openTestSocket(`${server.url}/ws`)
    client.send({ type: 'user_input', session: 'ok', text: 'hi' })
    await client.waitForTurn('ok')
    await client.close()
  })
})

describe('sessions in the namespace of a client key', () => {
  const chat = (session: string, key?: string, headers: Record<string, string> = {}, text = 'hi') =>
    fetch(`${server!.url}/api/chat`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...(key ? { 'x-charpipe-client': key } : {}),
        ...headers,
      },
      body: JSON.stringify({ session, text }),
    })
  const read = async (session: string, key?: string, headers: Record<string, string> = {}) => {
    const response = await fetch(`${server!.url}/api/sessions/${encodeURIComponent(session)}/messages`, {
      headers: { ...(key ? { 'x-charpipe-client': key } : {}), ...headers },
    })
    expect(response.status).toBe(200)
    return ((await response.json()).messages as { content: string }[]).map((message) => message.content)
  }

  it("another client (or none) can neither chat in, read nor interrupt a keyed client's session; its owner can", async () => {
    // The clock stands still: the owner's `!slow` turn runs until the test moves it.
    const clock = createManualClock()
    server = await startTestServer({ configText: '', clock })
    const first = await chat('diary', 'key-of-alice-0123456789', {}, 'my secret plan')
    expect(first.status).toBe(200)
    // Events name the session as the client does.
    expect(await first.text()).toContain('"session":"diary"')
    for (const key of ['key-of-mallory-0123456789', undefined]) {
      expect(await read('diary', key)).not.toContain('my secret plan')
      const other = await chat('diary', key, {}, `not alice: ${key}`)
      expect(other.status).toBe(200)
      await other.text()
    }
    expect(await read('diary', 'key-of-alice-0123456789')).toEqual(expect.arrayContaining(['my secret plan']))
    expect((await read('diary', 'key-of-alice-0123456789')).join()).not.toContain('not alice')
    // WebSocket: a stranger's turn and interrupt reach only the stranger's own session.
    const owner = await openTestSocket(`${server.url}/ws?client=key-of-alice-0123456789`)
    owner.send({ type: 'user_input', session: 'diary', text: '!slow story' })
    await owner.waitFor((frame) => frame.type === 'llm_chunk' && frame.session === 'diary')
    const stranger = await openTestSocket(`${server.url}/ws?client=key-of-mallory-0123456789`)
    stranger.send({ type: 'interrupt', session: 'diary', heard: 'x' })
    stranger.send({ type: 'user_input', session: 'diary', text: 'hi' })
    await stranger.waitForTurn('diary')
    const keyless = await openTestSocket(`${server.url}/ws`)
    keyless.send({ type: 'interrupt', session: 'diary', heard: 'x' })
    keyless.send({ type: 'user_input', session: 'diary', text: 'hi' })
    await keyless.waitForTurn('diary')
    // Both interrupts and both turns have been handled: the owner's turn runs on to its end.
    await clock.advance(60_000)
    const done = await owner.waitFor((frame) => frame.type === 'llm_done' && frame.session === 'diary')
    expect(done.interrupted).toBe(false)
    await stranger.close()
    await keyless.close()
    await owner.close()
  })

  it('a keyed client never locks a keyless one out of a session, however many sessions it names', async () => {
    server = await startTestServer({ configText: '' })
    const socket = await openTestSocket(`${server.url}/ws?client=key-of-mallory-0123456789`)
    for (let index = 0; index < 30; index++) socket.send({ type: 'open', session: `s${index}` })
    socket.send({ type: 'open', session: 'default' })
    await socket.waitFor((frame) => frame.type === 'opened' && frame.session === 'default')
    const taken = await chat('default', 'key-of-mallory-0123456789')
    await taken.text()
    for (const session of ['default', 's0', 's29']) {
      const page = await chat(session)
      expect(page.status).toBe(200)
      await page.text()
    }
    await socket.close()
  })

  it('reserved session ids are refused from keyless clients; the admin token reads a keyed session', async () => {
    const adminToken = 'admin-token-0123456789abcdef'
    server = await startTestServer({
      configText: `server:\n  token: chat-token-0123456789\n  admin_token: ${adminToken}\n`,
    })
    const chatToken = { authorization: 'Bearer chat-token-0123456789' }
    const first = await chat('diary', 'key-of-alice-0123456789', chatToken, 'my secret plan')
    await first.text()
    // What the server keeps it as: the key's namespace, which only the key (or the admin) reaches.
    const namespace = createHash('sha256').update('key-of-alice-0123456789').digest('base64url').slice(0, 22)
    const engineSession = `~${namespace}~diary`
    const guessed = await fetch(`${server.url}/api/sessions/${encodeURIComponent(engineSession!)}/messages`, {
      headers: chatToken,
    })
    expect(guessed.status).toBe(403)
    expect((await guessed.json()).error.message).toContain('X-Charpipe-Client')
    expect(await read(engineSession!, undefined, { authorization: `Bearer ${adminToken}` })).toContain(
      'my secret plan',
    )
  })
})
