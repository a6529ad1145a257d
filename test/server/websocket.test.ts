import { afterEach, describe, expect, it } from 'vitest'
import { createManualClock } from '../../src/testing/create-manual-clock.js'
import { startTestServer, type TestServer } from './start-test-server.js'
import { openTestSocket } from './websocket-client.js'

let server: TestServer | undefined
afterEach(async () => {
  await server?.stop()
  server = undefined
})

describe('GET /ws', () => {
  it('streams the events of a turn, each with session and turn, llm_done last', async () => {
    server = await startTestServer()
    const client = await openTestSocket(`${server.url}/ws`)
    client.send({ type: 'user_input', text: '你好' })
    const events = await client.waitForTurn('default')
    expect(events.map((event) => event.type)).toContain('llm_chunk')
    expect(events.map((event) => event.type)).toContain('llm_sentence')
    expect(events.at(-1)).toMatchObject({ type: 'llm_done', session: 'default', interrupted: false })
    expect(events.filter((event) => event.type === 'llm_done')).toHaveLength(1)
    const chunks = events
      .filter((event) => event.type === 'llm_chunk')
      .map((event) => event.text)
      .join('')
    expect(events.at(-1)!.text).toBe(chunks)
    for (const event of events) expect(typeof event.turn).toBe('string')
    await client.close()
  })

  it('runs several sessions on one socket', async () => {
    server = await startTestServer()
    const client = await openTestSocket(`${server.url}/ws`)
    client.send({ type: 'user_input', session: 'alice', text: 'a' })
    client.send({ type: 'user_input', session: 'bob', text: 'b' })
    const [alice, bob] = await Promise.all([client.waitForTurn('alice'), client.waitForTurn('bob')])
    expect(alice.at(-1)!.text).toContain('「a」')
    expect(bob.at(-1)!.text).toContain('「b」')
    expect(alice[0]!.turn).not.toBe(bob[0]!.turn)
    await client.close()
  })

  it('interrupts a running turn and stores what was heard', async () => {
    // The clock stands still: the `!slow` turn waits after its first chunk until interrupted.
    server = await startTestServer({ clock: createManualClock() })
    const client = await openTestSocket(`${server.url}/ws`)
    client.send({ type: 'user_input', session: 's1', text: '!slow story' })
    await client.waitFor((frame) => frame.type === 'llm_chunk')
    client.send({ type: 'interrupt', session: 's1', heard: '你说的' })
    const done = await client.waitFor((frame) => frame.type === 'llm_done')
    expect(done.interrupted).toBe(true)
    const response = await fetch(`${server.url}/api/sessions/s1/messages`)
    const body = (await response.json()) as {
      messages: { role: string; content: string; interrupted?: boolean }[]
    }
    expect(body.messages.at(-1)).toMatchObject({ role: 'assistant', content: '你说的', interrupted: true })
    await client.close()
  })

  it('interrupts every running turn of a socket that closes, and only of that socket', async () => {
    // The clock stands still: every `!slow` turn is still running when the socket closes.
    const clock = createManualClock()
    server = await startTestServer({ clock })
    const leaving = await openTestSocket(`${server.url}/ws`)
    const staying = await openTestSocket(`${server.url}/ws`)
    leaving.send({ type: 'user_input', session: 'a1', text: '!slow one' })
    leaving.send({ type: 'user_input', session: 'a2', text: '!slow two' })
    staying.send({ type: 'user_input', session: 'b1', text: '!slow three' })
    await Promise.all(
      ['a1', 'a2'].map((session) =>
        leaving.waitFor((frame) => frame.type === 'llm_chunk' && frame.session === session),
      ),
    )
    await staying.waitFor((frame) => frame.type === 'llm_chunk')
    await leaving.close()
    const lastOf = async (session: string) => {
      const response = await fetch(`${server!.url}/api/sessions/${session}/messages`)
      return ((await response.json()) as { messages: { role: string; interrupted?: boolean }[] }).messages.at(
        -1,
      )
    }
    for (const session of ['a1', 'a2']) {
      await server.fake!.idle(session)
      expect(await lastOf(session)).toMatchObject({ role: 'assistant', interrupted: true })
    }
    // The other socket's turn streams on to its end once time moves.
    await clock.advance(60_000)
    const done = await staying.waitFor((frame) => frame.type === 'llm_done')
    expect(done).toMatchObject({ session: 'b1', interrupted: false })
    await staying.close()
  })

  it('forwards llm_error then llm_done', async () => {
    server = await startTestServer()
    const client = await openTestSocket(`${server.url}/ws`)
    client.send({ type: 'user_input', text: '!error upstream_http' })
    const events = await client.waitForTurn('default')
    expect(events.map((event) => event.type)).toEqual(['llm_error', 'llm_done'])
    expect(events[0]).toMatchObject({ code: 'upstream_http' })
    await client.close()
  })

  const badFrames: { name: string; data: string | Buffer; mentions: RegExp }[] = [
    { name: 'not JSON', data: '{"type":', mentions: /not valid JSON/ },
    { name: 'a JSON array', data: '[1,2]', mentions: /JSON object/ },
    { name: 'a JSON string', data: '"hello"', mentions: /JSON object/ },
    { name: 'no type', data: '{"text":"hi"}', mentions: /type/ },
    { name: 'an unknown type', data: '{"type":"dance","text":"hi"}', mentions: /unknown frame type "dance"/ },
    { name: 'missing text', data: '{"type":"user_input"}', mentions: /text/ },
    { name: 'text of the wrong type', data: '{"type":"user_input","text":42}', mentions: /text/ },
    {
      name: 'session of the wrong type',
      data: '{"type":"user_input","text":"x","session":{}}',
      mentions: /session/,
    },
    {
      name: 'images not a list',
      data: '{"type":"user_input","text":"x","images":"a.png"}',
      mentions: /images/,
    },
    { name: 'an unknown field', data: '{"type":"user_input","text":"x","colour":"red"}', mentions: /colour/ },
    { name: 'heard of the wrong type', data: '{"type":"interrupt","heard":5}', mentions: /heard/ },
    {
      name: 'a frame nested too deep',
      data: `{"type":"user_input","text":"x","images":${'['.repeat(100)}${']'.repeat(100)}}`,
      mentions: /nests deeper than 64 levels/,
    },
    { name: 'a binary frame', data: Buffer.from('{"type":"user_input","text":"x"}'), mentions: /binary/ },
    {
      name: 'a frame over max_body_bytes',
      data: JSON.stringify({ type: 'user_input', text: 'x'.repeat(5000) }),
      mentions: /max_body_bytes \(4096\)/,
    },
  ]

  it.each(badFrames)(
    'answers $name with bad_request and keeps the connection usable',
    async ({ data, mentions }) => {
      server = await startTestServer({ configText: 'server:\n  max_body_bytes: 4096\n' })
      const client = await openTestSocket(`${server.url}/ws`)
      client.sendRaw(data)
      const error = await client.waitFor((frame) => frame.type === 'error')
      expect(error).toMatchObject({ type: 'error', code: 'bad_request' })
      expect(error.message).toMatch(mentions)
      const from = client.frames.length
      client.send({ type: 'user_input', text: 'still there?' })
      const events = await client.waitForTurn('default', from)
      expect(events.at(-1)).toMatchObject({ type: 'llm_done', interrupted: false })
      await client.close()
    },
  )
})
