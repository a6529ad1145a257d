import { describe, expect, it } from 'vitest'
import type { AudienceMessage } from '../audience/types.js'
import { createAdmission } from './create-admission.js'
import { createMinuteBudget } from './create-minute-budget.js'

const message = (overrides: Partial<AudienceMessage> = {}): AudienceMessage => ({
  id: 'm1',
  speaker: { id: 'u1', role: 'owner' },
  text: 'hello',
  gift: { name: 'rocket', value: 500 },
  ...overrides,
})

describe('createAdmission', () => {
  it("keeps a connector's sessions its own", () => {
    const admission = createAdmission()
    const session = 'onebot:qq:group:111'
    const client = admission.admit({ door: 'ws_audience', caller: { kind: 'client' }, session })
    expect(client).toMatchObject({ ok: false, code: 'forbidden' })
    expect(!client.ok && client.reason).toContain('connector "qq"')
    const other = admission.admit({
      door: 'connector_audience',
      caller: { kind: 'connector', name: 'tw', connectorKind: 'twitch' },
      session,
    })
    expect(other).toMatchObject({ ok: false, code: 'forbidden' })
    const own = { kind: 'connector' as const, name: 'qq', connectorKind: 'onebot' as const }
    expect(admission.admit({ door: 'connector_audience', caller: own, session }).ok).toBe(true)
    expect(admission.admit({ door: 'http_messages', caller: { kind: 'admin' }, session }).ok).toBe(true)
    expect(admission.stats().refused).toEqual({
      ws_audience: { forbidden: 1 },
      connector_audience: { forbidden: 1 },
    })
  })

  it("refuses a connector's session id even where a client key would make it the client's own", () => {
    const admission = createAdmission()
    const refused = admission.admit({
      door: 'http_chat',
      caller: { kind: 'named_client', name: 'airi' },
      session: '~namespace~onebot:qq:group:111',
      named: 'onebot:qq:group:111',
    })
    expect(refused).toMatchObject({ ok: false, code: 'forbidden' })
    expect(!refused.ok && refused.reason).toContain('session "onebot:qq:group:111"')
  })

  it('lets a named client follow only the connectors it lists, and only through the follow doors', () => {
    const admission = createAdmission()
    const caller = { kind: 'named_client' as const, name: 'vtuber', follow: ['tw'] }
    const session = 'twitch:tw:channel'
    for (const door of ['ws_open', 'ws_activity', 'ws_interrupt', 'ws_follow'] as const)
      expect(admission.admit({ door, caller, session }).ok).toBe(true)
    for (const door of ['ws_user_input', 'ws_audience', 'http_messages', 'v1'] as const)
      expect(admission.admit({ door, caller, session }).ok).toBe(false)
    expect(admission.admit({ door: 'ws_open', caller, session: 'onebot:qq:group:1' }).ok).toBe(false)
    const everything = { ...caller, follow: ['*'] }
    expect(admission.admit({ door: 'ws_open', caller: everything, session: 'onebot:qq:group:1' }).ok).toBe(
      true,
    )
  })

  it("makes a chat client's speakers viewers and drops their gifts; a connector's and the admin's stay", () => {
    const admission = createAdmission()
    const messages = [message(), message({ id: 'm2', speaker: { id: 'u2', role: 'moderator' } })]
    const client = admission.admit({
      door: 'http_audience',
      caller: { kind: 'client' },
      session: 's',
      messages,
    })
    expect(client.ok && client.messages).toEqual([
      { id: 'm1', speaker: { id: 'u1', role: 'viewer' }, text: 'hello' },
      { id: 'm2', speaker: { id: 'u2', role: 'viewer' }, text: 'hello' },
    ])
    const connector = { kind: 'connector' as const, name: 'qq', connectorKind: 'onebot' as const }
    const fromConnector = admission.admit({
      door: 'connector_audience',
      caller: connector,
      session: 'onebot:qq:group:1',
      messages,
    })
    expect(fromConnector.ok && fromConnector.messages).toEqual(messages)
    const fromAdmin = admission.admit({
      door: 'ws_audience',
      caller: { kind: 'admin' },
      session: 's',
      messages,
    })
    expect(fromAdmin.ok && fromAdmin.messages).toEqual(messages)
  })

  it("charges a connector's 1:1 turns at the door, and never an audience message", () => {
    let time = 0
    const admission = createAdmission()
    const budget = createMinuteBudget({
      readPerMinute: () => 2,
      setting: 'x.turns_per_minute',
      now: () => time,
    })
    const caller = { kind: 'connector' as const, name: 'qq', connectorKind: 'onebot' as const, budget }
    const turn = () => admission.admit({ door: 'connector_turn', caller, session: 'onebot:qq:private:1' })
    expect([turn().ok, turn().ok]).toEqual([true, true])
    expect(turn()).toMatchObject({
      ok: false,
      code: 'rate_limited',
      reason: expect.stringContaining('x.turns_per_minute'),
    })
    // Audience messages flow on past a spent budget: the turns answering them are charged later.
    for (let index = 0; index < 5; index++)
      expect(
        admission.admit({
          door: 'connector_audience',
          caller,
          session: 'onebot:qq:group:1',
          messages: [message()],
        }).ok,
      ).toBe(true)
    expect(budget.take()).toMatchObject({ ok: false, retryAfterMs: 60_000 })
    time += 60_001
    expect(turn().ok).toBe(true)
  })
})
