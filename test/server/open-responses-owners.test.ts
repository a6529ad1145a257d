/**
 * Stored `/v1/responses` belong to who made them: the admin token, the chat token (a keyless origin),
 * a client key and a named client each read, continue, list and delete only their own, and get for
 * anyone else's id the very 404 of an id never stored. `store: false` keeps nothing of the turn.
 */
import OpenAI from 'openai'
import { describe, expect, it } from 'vitest'
import { useServersOverMockModel } from './use-servers-over-mock-model.js'

const suite = useServersOverMockModel()
const chatToken = 'chat-token-0123456789abcdef'
const adminToken = 'admin-token-0123456789abcdef'
const vtuberToken = 'vtuber-token-0123456789abcdef'

const start = () =>
  suite.start([
    'character:',
    '  name: Mika',
    '  persona: A cheerful barista.',
    'server:',
    `  token: ${chatToken}`,
    `  admin_token: ${adminToken}`,
    '  clients:',
    '    - name: vtuber',
    `      token: ${vtuberToken}`,
  ])

const openai = (token: string, headers: Record<string, string> = {}) =>
  new OpenAI({ baseURL: `${suite.server.url}/v1`, apiKey: token, maxRetries: 0, defaultHeaders: headers })

/** Every way to reach a stored response by its id, as `token` sends it: status and body. */
async function reach(token: string, id: string, headers: Record<string, string> = {}) {
  const authorization = { authorization: `Bearer ${token}`, ...headers }
  const url = `${suite.server.url}/v1/responses/${id}`
  const answers = await Promise.all([
    fetch(url, { headers: authorization }),
    fetch(`${url}/input_items`, { headers: authorization }),
    fetch(`${suite.server.url}/v1/responses`, {
      method: 'POST',
      headers: { ...authorization, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'mika', input: 'Go on', previous_response_id: id }),
    }),
  ])
  // DELETE last: an owner's delete would change what the others see.
  answers.push(await fetch(url, { method: 'DELETE', headers: authorization }))
  return Promise.all(
    answers.map(async (answer) => ({
      status: answer.status,
      // The id the caller sent is echoed: compared without it.
      body: JSON.stringify(await answer.json()).replaceAll(id, '<id>'),
    })),
  )
}

const neverStored = `resp_${'f'.repeat(32)}`

describe('who a stored response belongs to', () => {
  it('answers anyone but its maker exactly as an id never stored, for GET, input_items, previous_response_id and DELETE', async () => {
    await start()
    const made = await openai(adminToken).responses.create({ model: 'mika', input: 'Admin secret plans' })
    const missing = await reach(chatToken, neverStored)
    expect(missing.map((answer) => answer.status)).toEqual([404, 404, 404, 404])
    for (const [token, headers] of [
      [chatToken, {}],
      [chatToken, { 'X-Charpipe-Client': 'some-key' }],
      [vtuberToken, {}],
    ] as const) {
      expect(await reach(token, made.id, headers)).toEqual(missing)
    }
    // Its maker reads it, lists its input and deletes it; then it is gone for the maker too.
    expect((await openai(adminToken).responses.retrieve(made.id)).id).toBe(made.id)
    const items = await (
      await fetch(`${suite.server.url}/v1/responses/${made.id}/input_items`, {
        headers: { authorization: `Bearer ${adminToken}` },
      })
    ).json()
    expect(JSON.stringify(items.data)).toContain('Admin secret plans')
    await openai(adminToken).responses.delete(made.id)
    expect(await reach(adminToken, made.id)).toEqual(missing)
  })

  it("keeps the chat token's responses from the admin token and from a named client", async () => {
    await start()
    const made = await openai(chatToken).responses.create({ model: 'mika', input: 'Hello' })
    const missing = await reach(adminToken, neverStored)
    expect(await reach(adminToken, made.id)).toEqual(missing)
    expect(await reach(vtuberToken, made.id)).toEqual(await reach(vtuberToken, neverStored))
    // The chat token, from the same address, continues its own.
    suite.model.script({ text: 'Welcome back.' })
    const next = await openai(chatToken).responses.create({
      model: 'mika',
      input: 'Again',
      previous_response_id: made.id,
    })
    expect(next.previous_response_id).toBe(made.id)
  })

  it('stores nothing of a keyless store: false turn: no history in the shared session, no record', async () => {
    await start()
    suite.model.script({ text: 'Nothing kept.' })
    const unstored = await openai(chatToken).responses.create({
      model: 'mika',
      input: 'Forget me',
      store: false,
    })
    expect(await suite.server.charpipe.records.read({ kind: 'responses', id: unstored.id })).toBeUndefined()
    const history = await fetch(`${suite.server.url}/api/sessions/openai/messages`, {
      headers: { authorization: `Bearer ${adminToken}` },
    })
    expect((await history.json()).messages).toEqual([])
    // A stored one by the same caller does land there: the check above could fail.
    suite.model.script({ text: 'Kept.' })
    await openai(chatToken).responses.create({ model: 'mika', input: 'Remember me' })
    const after = await fetch(`${suite.server.url}/api/sessions/openai/messages`, {
      headers: { authorization: `Bearer ${adminToken}` },
    })
    expect(JSON.stringify((await after.json()).messages)).toContain('Remember me')
  })
})
