/**
 * A named client's `/v1` `user` is a person (`client:<client name>:<id>`), sent with the official
 * `openai` client over the real engine and the mock model server: what one end user tells through
 * `/v1/chat/completions` is kept in their memory (listed by the people API under that id) and
 * recalled when they speak again through another session of the client, by `/v1/responses` too
 * (`user`, or `safety_identifier` where no `user` is sent) and by the client's `speaker` of that id
 * on `/api/chat`; a regenerate forgets the replaced turn's memory in that person's memory; another
 * end user of the same client, or a user of the same id of another client, never gets it; the
 * admin token and a tokenless caller name no person by `user`; an end-user id that is blank, too
 * long or holds control characters is refused with 400 naming the field.
 */
import OpenAI from 'openai'
import { describe, expect, it, vi } from 'vitest'
import { useServersOverMockModel } from './use-servers-over-mock-model.js'

const suite = useServersOverMockModel()

const airiToken = 'airi-token-0123456789abcdef'
const adminToken = 'admin-token-0123456789abcdef'
const deskToken = 'desk-token-0123456789abcdef'
const fact = 'my favourite fruit is durian'
const ann = 'client:airi:ann'
const bob = 'client:airi:bob'

const start = () =>
  suite.start([
    'character: { name: Nova, reply_format: plain, language: en }',
    'memory: { per_person: true, min_score: 0 }',
    'server:',
    `  admin_token: ${adminToken}`,
    '  clients:',
    `    - { name: airi, token: ${airiToken} }`,
    `    - { name: desk, token: ${deskToken}, profile: { history: server } }`,
  ])

/** The official client as the front end holding `token` (none: a tokenless caller), in `session`. */
const openai = (token: string | undefined, session: string) =>
  new OpenAI({
    baseURL: `${suite.server.url}/v1`,
    apiKey: token ?? 'unused',
    maxRetries: 0,
    defaultHeaders: { 'X-Session-Id': session, ...(token ? {} : { authorization: null }) },
  })

const admin = async (path: string) => {
  const response = await fetch(`${suite.server.url}${path}`, {
    headers: { authorization: `Bearer ${adminToken}` },
  })
  return { status: response.status, body: await response.json() }
}

const memoriesOf = async (person: string): Promise<string[]> => {
  const answer = await admin(`/api/people/${encodeURIComponent(person)}/memories`)
  return answer.status === 200 ? answer.body.memories.map((memory: { text: string }) => memory.text) : []
}

const listedPeople = async (): Promise<string[]> =>
  (await admin('/api/people')).body.people.map((person: { id: string }) => person.id)

/** The prompt of the model's last request, as text. */
const lastPrompt = () => JSON.stringify(suite.model.requests.at(-1)?.body)

/** Tells the fact as Ann through /v1/chat/completions and waits until it is in her memory. */
async function annTellsTheFact() {
  await openai(airiToken, 'kitchen').chat.completions.create({
    model: 'nova',
    messages: [{ role: 'user', content: fact }],
    user: 'ann',
  })
  await vi.waitFor(async () => expect(await memoriesOf(ann)).toHaveLength(1), { timeout: 15_000 })
}

describe("a named client's /v1 user is a person", () => {
  it('keeps what the user told under client:<client>:<user> and recalls it in another session of the client', {
    timeout: 60_000,
  }, async () => {
    await start()
    await annTellsTheFact()
    expect((await memoriesOf(ann))[0]).toContain('durian')
    const people = (await admin('/api/people')).body.people as { id: string; memories: number }[]
    expect(people.find((person) => person.id === ann)).toMatchObject({ memories: 1 })

    // Ann again, in a session that never heard the fact, through the Responses API.
    await openai(airiToken, 'garden').responses.create({
      model: 'nova',
      input: 'Which fruit do I like best?',
      user: 'ann',
    })
    expect(lastPrompt()).toContain('durian')
    // A person is no group-chat speaker: the words reach the model as they were sent.
    const sent = (suite.model.requests.at(-1)!.body as { messages: { content: unknown }[] }).messages
    expect(sent.at(-1)?.content).toBe('Which fruit do I like best?')
    // An Open Responses client sends no `user`; its `safety_identifier` names the person then.
    await openai(airiToken, 'porch').responses.create({
      model: 'nova',
      input: 'Remind me of my favourite fruit.',
      safety_identifier: 'ann',
    })
    expect(lastPrompt()).toContain('durian')
  })

  it("is the person the same client's speaker of that id is on its other doors", {
    timeout: 60_000,
  }, async () => {
    await start()
    await annTellsTheFact()
    const answer = await fetch(`${suite.server.url}/api/chat`, {
      method: 'POST',
      headers: { authorization: `Bearer ${airiToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ session: 'hall', text: 'Which fruit do I like?', speaker: { id: 'ann' } }),
    })
    expect(answer.status).toBe(200)
    await answer.text()
    expect(lastPrompt()).toContain('durian')
  })

  it('keeps two users of one client apart', { timeout: 60_000 }, async () => {
    await start()
    await annTellsTheFact()
    await openai(airiToken, 'garden').chat.completions.create({
      model: 'nova',
      messages: [{ role: 'user', content: 'Which fruit do I like best?' }],
      user: 'bob',
    })
    expect(lastPrompt()).not.toContain('durian')
    await vi.waitFor(async () => expect(await memoriesOf(bob)).toHaveLength(1), { timeout: 15_000 })
    expect((await memoriesOf(bob)).join(' ')).not.toContain('durian')
    expect(await memoriesOf(ann)).toHaveLength(1)
  })

  it("a regenerate forgets the replaced turn's memory in the person's own memory", {
    timeout: 60_000,
  }, async () => {
    await start()
    const desk = openai(deskToken, 'kitchen')
    const send = (messages: { role: 'user' | 'assistant'; content: string }[]) =>
      desk.chat.completions.create({ model: 'nova', messages, user: 'ann' })
    const sourceTurns = async (): Promise<string[]> => {
      const answer = await admin(`/api/people/${encodeURIComponent('client:desk:ann')}/memories`)
      if (answer.status !== 200) return []
      return answer.body.memories.map((memory: { source_turn: string }) => memory.source_turn)
    }
    const greeting = { role: 'user' as const, content: 'Hi, I am Ann.' }
    const reply = (await send([greeting])).choices[0]!.message.content ?? ''
    const history = [greeting, { role: 'assistant' as const, content: reply }]
    await vi.waitFor(async () => expect(await sourceTurns()).toHaveLength(1), { timeout: 15_000 })
    const [kept] = await sourceTurns()
    await send([...history, { role: 'user', content: fact }])
    await vi.waitFor(async () => expect(await sourceTurns()).toHaveLength(2), { timeout: 15_000 })
    const replaced = (await sourceTurns()).find((turn) => turn !== kept)
    // The same question again, its reply dropped: a regenerate (the store keeps desk's history).
    await send([...history, { role: 'user', content: fact }])
    await vi.waitFor(
      async () => {
        const turns = await sourceTurns()
        expect(turns).toHaveLength(2)
        expect(turns).toContain(kept)
        expect(turns).not.toContain(replaced)
      },
      { timeout: 15_000 },
    )
    // Another client's user of the same id is another person.
    expect(await memoriesOf(ann)).toEqual([])
  })

  it('names no person for the admin token or a tokenless caller: their user names only the session', {
    timeout: 60_000,
  }, async () => {
    await start()
    await annTellsTheFact()
    for (const token of [adminToken, undefined]) {
      await openai(token, 'garden').chat.completions.create({
        model: 'nova',
        messages: [{ role: 'user', content: 'Which fruit do I like best?' }],
        user: 'ann',
      })
      expect(lastPrompt()).not.toContain('durian')
    }
    // Their turns are remembered as their conversation's person, never as Ann's.
    await vi.waitFor(async () => expect(await memoriesOf('session:garden')).toHaveLength(2), {
      timeout: 15_000,
    })
    expect(await memoriesOf(ann)).toHaveLength(1)
    expect((await listedPeople()).sort()).toEqual([ann, 'session:garden'])
  })

  it('refuses a blank, too long or control-character user or safety_identifier with 400 naming the field', async () => {
    await start()
    const client = openai(airiToken, 'kitchen')
    const chat = (extra: { user?: string; safety_identifier?: string }) =>
      client.chat.completions.create({ model: 'nova', messages: [{ role: 'user', content: 'hi' }], ...extra })
    const refusals: [string, Promise<unknown>][] = [
      ['user: must not hold control characters or line breaks', chat({ user: 'ann\nbob' })],
      ['user: at most 200 characters', chat({ user: 'x'.repeat(201) })],
      ['user: must not be blank', client.responses.create({ model: 'nova', input: 'hi', user: '   ' })],
      [
        'safety_identifier: must not hold control characters',
        client.responses.create({ model: 'nova', input: 'hi', safety_identifier: 'ann\u0007' }),
      ],
      ['safety_identifier: must not hold control characters', chat({ safety_identifier: 'ann\u2028bob' })],
    ]
    for (const [reason, refused] of refusals) {
      const error = await refused.then(
        () => undefined,
        (thrown: unknown) => thrown,
      )
      expect(error).toBeInstanceOf(OpenAI.BadRequestError)
      expect((error as Error).message).toContain(reason)
    }
    expect(suite.model.requests).toHaveLength(0)
    expect(await listedPeople()).toEqual([])
  })
})
