/**
 * The door battery's HTTP and connector doors (battery.ts), and what no one door shows: a chat
 * client's ids, roles and gifts kept out of a connector's conversation, and message ids kept apart
 * per source. A door missing from the drivers' table fails here.
 */
import { describe, expect, it, vi } from 'vitest'
import { doors } from '../../src/admission/index.js'
import { openTestSocket } from '../server/websocket-client.js'
import {
  adminToken,
  type CellOutcome,
  chatToken,
  expectWithinLimits,
  lastUserText,
  markerOf,
  model,
  readMetrics,
  readRefusals,
  runCell,
  server,
  settleCells,
  testDoors,
  useBattery,
  world,
} from './battery.js'
import { doorDrivers } from './door-drivers.js'

useBattery()

// Generous: a guard against a hang, not a measure (each door's cells take about a second).
describe('door battery: HTTP and connector doors', { timeout: 120_000 }, () => {
  it('has a driver for every door the admission lists, and none for a door it does not', () => {
    expect(Object.keys(doorDrivers).sort()).toEqual([...doors].sort())
  })

  testDoors(doors.filter((door) => !door.startsWith('ws_')))

  it("never lets a chat client's message id, role or gift into a connector's conversation", async () => {
    const run = 'apart'
    const before = await readMetrics()
    const cells = [
      ['ws_audience', 'foreign_session'],
      ['http_audience', 'privileged_role'],
      ['connector_audience', 'reused_id'],
      ['connector_audience', 'flood'],
      ['connector_audience', 'oversized_text'],
    ] as const
    const outcomes: CellOutcome[] = []
    for (const [door, input] of cells) outcomes.push(await runCell(door, input, run))
    const reusedCell = markerOf('connector_audience', 'reused_id', run)
    const floodCell = markerOf('connector_audience', 'flood', run)
    // A connector's events reach the server after its cell has sent them: wait for what they do.
    await vi.waitFor(
      async () => {
        // The member's message with the id a chat client sent first was not taken for a
        // duplicate: it reached the model.
        expect(model.requests.some((request) => lastUserText(request.body).includes(`${reusedCell} `))).toBe(
          true,
        )
        // A connector's flood flows into the selector, which drops what cannot wait.
        expect(
          server.charpipe.audience
            .queue({ session: 'onebot:qqflood:group:789', character: 'alice' })
            .dropped.filter((entry) => entry.id.startsWith(`${floodCell}-`)).length,
        ).toBeGreaterThanOrEqual(8)
        expect(readRefusals(await readMetrics(), 'connector_audience', 'bad_request')).toBeGreaterThan(
          readRefusals(before, 'connector_audience', 'bad_request'),
        )
      },
      { timeout: 30_000, interval: 20 },
    )
    await settleCells()
    expectWithinLimits(outcomes)
    // The chat client sent the same id first, into the connector's session: refused.
    const reused = outcomes.find((outcome) => outcome.marker === reusedCell)
    expect(reused?.reasons.join(' ')).toContain('connector "qq"')
    const metrics = await readMetrics()
    // A connector's flood is never refused at the door for its budget: its turns are counted (the
    // model requests above), its lines flow into the selector.
    expect(metrics).not.toMatch(
      /charpipe_admission_refused_total\{door="connector_audience",code="rate_limited"\}/,
    )
    expect(readRefusals(metrics, 'ws_audience', 'forbidden')).toBeGreaterThan(
      readRefusals(before, 'ws_audience', 'forbidden'),
    )
    // A chat client's `owner` with a gift reached the prompt as a viewer without the gift.
    const privilegedCell = `${markerOf('http_audience', 'privileged_role', run)} `
    const privileged = model.requests
      .map((request) => JSON.stringify(request.body))
      .filter((body) => body.includes(privilegedCell))
    expect(privileged.length).toBeGreaterThan(0)
    for (const body of privileged) expect(body).not.toContain('rocket')
  })

  it("drops a chat client's gift when its speaker names no role, at both audience doors; the admin's reaches the prompt", async () => {
    const gift = { name: 'balloon', value: 3 }
    const line = (marker: string) => ({
      id: marker,
      speaker: { id: 'viewer-7' },
      text: `${marker} hello`,
      gift,
    })
    const post = (marker: string, token: string) =>
      fetch(`${server.url}/api/sessions/s-${marker}/audience`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
          'x-forwarded-for': world.nextAddress(),
        },
        body: JSON.stringify({ messages: [line(marker)] }),
      })
    const fromClient = await post('gift-http-client', chatToken)
    expect(fromClient.status).toBe(202)
    const fromAdmin = await post('gift-http-admin', adminToken)
    expect(fromAdmin.status).toBe(202)
    const socket = await openTestSocket(`${server.url}/ws`, { authorization: `Bearer ${chatToken}` })
    try {
      socket.send({ type: 'audience', session: 's-gift-ws-client', messages: [line('gift-ws-client')] })
      const requestOf = (marker: string) =>
        model.requests.find((request) => lastUserText(request.body).includes(`${marker} hello`))
      await vi.waitFor(
        () => {
          for (const marker of ['gift-http-client', 'gift-http-admin', 'gift-ws-client'])
            expect(requestOf(marker), `${marker}: answered`).toBeDefined()
        },
        { timeout: 30_000, interval: 20 },
      )
      // The admin may bring a gift: it is in the prompt, so a gift let through would be seen.
      expect(lastUserText(requestOf('gift-http-admin')?.body)).toContain('[gift: balloon')
      for (const marker of ['gift-http-client', 'gift-ws-client'])
        expect(JSON.stringify(requestOf(marker)?.body), `${marker}: no gift`).not.toContain('balloon')
    } finally {
      await socket.close()
    }
  })

  it("keeps message ids apart per source: the admin's id never makes a member's message a duplicate", async () => {
    const session = 'onebot:qq:group:123'
    const id = 'across-sources-1'
    // The admin (who may reach a connector's session) sends an id first, as a viewer of the same id.
    const posted = await fetch(`${server.url}/api/sessions/${encodeURIComponent(session)}/audience`, {
      method: 'POST',
      headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        character: 'alice',
        messages: [{ id, speaker: { id: '4343' }, text: 'admin line across sources' }],
      }),
    })
    expect(await posted.json()).toEqual({ accepted: 1, dropped: [] })
    // Then a group member's message carries the same id (and the same speaker id).
    const event = JSON.stringify({
      time: Math.floor(Date.now() / 1000),
      self_id: world.onebot.selfId,
      post_type: 'message',
      message_type: 'group',
      sub_type: 'normal',
      message_id: id,
      group_id: 123,
      user_id: 4343,
      message: [{ type: 'text', data: { text: 'member words across sources' } }],
      raw_message: '',
      font: 0,
      sender: { user_id: 4343, nickname: 'member', card: '', role: 'member' },
    })
    world.onebot.sendRaw(event)
    await vi.waitFor(
      () => {
        const bodies = model.requests.map((request) => lastUserText(request.body))
        expect(bodies.some((text) => text.includes('admin line across sources'))).toBe(true)
        expect(bodies.some((text) => text.includes('member words across sources'))).toBe(true)
      },
      { timeout: 20_000, interval: 100 },
    )
    const dropped = server.charpipe.audience.queue({ session, character: 'alice' }).dropped
    expect(dropped.filter((entry) => entry.id === id)).toEqual([])
  })
})
