import { describe, expect, it } from 'vitest'
import { BadRequestError } from '../shared/errors.js'
import { createLogger } from '../shared/logger.js'
import { createAdmission } from './create-admission.js'
import { createRateLimitedLog } from './create-rate-limited-log.js'
import { type GuardedHost, guardConnectorHost } from './guard-connector-host.js'

function setUp(host: Partial<GuardedHost>, turnsPerMinute = 20) {
  const lines: Record<string, unknown>[] = []
  const logger = createLogger({
    level: 'warn',
    format: 'json',
    destination: { write: (line: string) => lines.push(JSON.parse(line)) },
  })
  let time = 0
  const admission = createAdmission()
  const guarded = guardConnectorHost({
    host: {
      audience: { send: () => ({ accepted: 1, dropped: [] }) },
      sessions: { follow: () => () => {} },
      run: async () => {},
      ...host,
    },
    connector: { kind: 'twitch', name: 'tw', index: 0 },
    readTurnsPerMinute: () => turnsPerMinute,
    admission,
    log: createRateLimitedLog({ logger, now: () => time }),
    now: () => time,
  })
  return { guarded, lines, admission, advance: (ms: number) => (time += ms) }
}

const line = (id: string) => ({ id, speaker: { id: 'viewer' }, text: 'hi' })

describe('guardConnectorHost', () => {
  it("runs a connector's 1:1 turn as the connector trigger, so it may end in silence", async () => {
    const seen: unknown[] = []
    const { guarded } = setUp({
      run: async (_input, options) => {
        seen.push(options)
      },
    })
    const onEvent = () => {}
    await guarded.run({ session: 'twitch:tw:chan', text: 'hi' }, { onEvent })
    expect(seen).toEqual([{ onEvent, source: 'connector' }])
  })

  it('turns an exception of the host into a counted drop with one log line per interval', () => {
    const { guarded, lines, admission, advance } = setUp({
      audience: {
        send: () => {
          throw new BadRequestError('character "alice" is not configured')
        },
      },
    })
    for (let index = 0; index < 10; index++)
      expect(guarded.audience.send({ session: 'twitch:tw:chan', messages: [line(`m${index}`)] })).toEqual({
        accepted: 0,
        dropped: [],
      })
    expect(admission.stats().refused.connector_audience).toEqual({ bad_request: 10 })
    expect(lines).toHaveLength(1)
    expect(lines[0]).toMatchObject({
      connector: 'tw',
      code: 'bad_request',
      reason: expect.stringContaining('alice'),
    })
    advance(10_000)
    guarded.audience.send({ session: 'twitch:tw:chan', messages: [line('late')] })
    expect(lines).toHaveLength(2)
    expect(lines[1]).toMatchObject({ suppressed: 9 })
  })

  it('hands every message on with the connector budget as its admitTurn, and keeps to its own sessions', () => {
    const handed: string[] = []
    const admitters: (() => { ok: boolean })[] = []
    const { guarded, admission } = setUp(
      {
        audience: {
          send: (input) => {
            handed.push(input.messages[0]!.id)
            if (input.admitTurn) admitters.push(input.admitTurn)
            return { accepted: 1, dropped: [] }
          },
        },
      },
      3,
    )
    for (let index = 0; index < 10; index++)
      guarded.audience.send({ session: 'twitch:tw:chan', messages: [line(`m${index}`)] })
    guarded.audience.send({ session: 'onebot:qq:group:1', messages: [line('foreign')] })
    expect(handed).toHaveLength(10)
    expect(admission.stats().refused.connector_audience).toEqual({ forbidden: 1 })
    // The turns answering them share the connector's one budget of 3 a minute.
    expect(admitters.map((admit) => admit().ok)).toEqual([true, true, true, ...Array(7).fill(false)])
  })

  it('never throws out of run, even when the host throws before its promise exists', async () => {
    const { guarded, admission } = setUp({
      run: () => {
        throw new BadRequestError('text is too long')
      },
    })
    await expect(
      guarded.run({ session: 'twitch:tw:chan', text: 'x' }, { onEvent: () => {} }),
    ).resolves.toBeUndefined()
    expect(admission.stats().refused.connector_turn).toEqual({ bad_request: 1 })
  })

  it('charges the idle turns of a session it follows to the connector budget', () => {
    let admitIdle: (() => boolean) | undefined
    const { guarded, advance } = setUp(
      {
        sessions: {
          follow: (input) => {
            admitIdle = input.admitIdle
            return () => {}
          },
        },
      },
      2,
    )
    guarded.sessions.follow({ session: 'twitch:tw:chan', onEvent: () => {} })
    expect([admitIdle?.(), admitIdle?.(), admitIdle?.()]).toEqual([true, true, false])
    advance(60_000)
    expect(admitIdle?.()).toBe(true)
  })

  it('never throws while describing what the host threw, whatever it threw', async () => {
    const odd = Object.assign(new Error('x'), { message: { toString: 1 } })
    for (const thrown of [odd, { toString: 1 }, null]) {
      const { guarded, lines } = setUp({
        audience: {
          send: () => {
            throw thrown
          },
        },
        run: () => {
          throw thrown
        },
      })
      expect(guarded.audience.send({ session: 'twitch:tw:chan', messages: [line('m')] })).toEqual({
        accepted: 0,
        dropped: [],
      })
      await expect(
        guarded.run({ session: 'twitch:tw:chan', text: 'hi' }, { onEvent: () => {} }),
      ).resolves.toBe(undefined)
      expect(lines[0]).toMatchObject({ reason: 'the message was refused' })
    }
  })
})
