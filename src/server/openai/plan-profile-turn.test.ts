import { describe, expect, it } from 'vitest'
import { type ClientProfile, defaultClientProfile, planProfileTurn } from './plan-profile-turn.js'

const profile = (overrides: Partial<ClientProfile>): ClientProfile => ({
  ...defaultClientProfile,
  ...overrides,
})
const clientPrompt = {
  system: 'You are AIRI.',
  history: [
    { role: 'user' as const, content: 'earlier' },
    { role: 'assistant' as const, content: 'reply' },
  ],
}
const request = { clientPrompt, user: undefined, sessionHeader: undefined, model: 'gpt-4o' }

describe('planProfileTurn', () => {
  it('the default profile keeps the rules of clients without one', () => {
    expect(planProfileTurn({ ...request, profile: defaultClientProfile })).toMatchObject({
      ok: true,
      session: undefined,
      stateless: true,
      clientPrompt,
      character: 'gpt-4o',
    })
    expect(
      planProfileTurn({ ...request, clientPrompt: undefined, profile: defaultClientProfile }),
    ).toMatchObject({
      session: 'openai',
      stateless: false,
    })
    expect(
      planProfileTurn({ ...request, user: 'u1', sessionHeader: 'h1', profile: defaultClientProfile }),
    ).toMatchObject({ session: 'h1', stateless: false })
  })

  it('persona server, history server: nothing of the client prompt, a stored session', () => {
    const plan = planProfileTurn({ ...request, profile: profile({ persona: 'server', history: 'server' }) })
    expect(plan).toMatchObject({ ok: true, session: 'openai', stateless: false, serverHistory: true })
    expect(plan.ok && plan.clientPrompt).toBeUndefined()
  })

  it("persona client, history server: the client's system text alone, the store's history", () => {
    const plan = planProfileTurn({ ...request, profile: profile({ history: 'server' }) })
    expect(plan.ok && plan.clientPrompt).toEqual({ system: 'You are AIRI.' })
  })

  it('persona server, history client: the client turns without its system text', () => {
    const plan = planProfileTurn({ ...request, profile: profile({ persona: 'server' }) })
    expect(plan.ok && plan.clientPrompt).toEqual({ history: clientPrompt.history })
  })

  it('session modes: client, user and header, each refusing a request without its source', () => {
    const sources = { user: 'u1', sessionHeader: 'h1' }
    expect(
      planProfileTurn({ ...request, ...sources, profile: profile({ session: 'client' }) }),
    ).toMatchObject({
      session: 'openai',
    })
    expect(planProfileTurn({ ...request, ...sources, profile: profile({ session: 'user' }) })).toMatchObject({
      session: 'u1',
    })
    expect(
      planProfileTurn({ ...request, ...sources, profile: profile({ session: 'header' }) }),
    ).toMatchObject({
      session: 'h1',
    })
    const noUser = planProfileTurn({ ...request, profile: profile({ session: 'user' }) })
    expect(noUser.ok === false && noUser.message).toContain('"user" field')
    const noHeader = planProfileTurn({ ...request, profile: profile({ session: 'header' }) })
    expect(noHeader.ok === false && noHeader.message).toContain('X-Session-Id')
  })

  it("the profile's character wins over the request's model", () => {
    expect(planProfileTurn({ ...request, profile: profile({ character: 'mika' }) })).toMatchObject({
      character: 'mika',
    })
  })
})
