import { describe, expect, it } from 'vitest'
import {
  awaitGrant,
  createGrantedAuthorization,
  createWithheldAuthorization,
  holdUntilGranted,
} from './turn-authorization.js'

/** A manual clock: the head start is what it moved by. */
let time = 0
const now = () => time
const finalInput = { session: 's', text: '你好。' }
const ended = { interrupted: false }

describe('turn authorization', () => {
  it('a turn born granted passes its events straight on and never waits', async () => {
    const authorization = createGrantedAuthorization(now)
    const seen: number[] = []
    const deliver = (event: number) => seen.push(event)
    expect(holdUntilGranted(authorization, deliver)).toBe(deliver)
    expect(await awaitGrant(authorization, ended, new AbortController().signal)).toBe(true)
    expect(authorization.heldMs).toBeUndefined()
    expect(authorization.input).toBeUndefined()
  })

  it('a withheld turn holds its events in order and lets them go at the grant, before anything newer', () => {
    const authorization = createWithheldAuthorization(now)
    const seen: number[] = []
    const emit = holdUntilGranted(authorization, (event: number) => seen.push(event))
    emit(1)
    emit(2)
    expect(seen).toEqual([])
    time += 250
    authorization.grant(finalInput)
    emit(3)
    expect(seen).toEqual([1, 2, 3])
    expect(authorization.input).toEqual(finalInput)
    expect(authorization.heldMs).toBe(250)
    expect(authorization.grantedAt).toBe(time)
  })

  it('the runner waits for the grant; a second grant changes nothing', async () => {
    const authorization = createWithheldAuthorization(now)
    const waiting = awaitGrant(authorization, ended, new AbortController().signal)
    authorization.grant(finalInput)
    authorization.grant({ session: 's', text: 'other' })
    expect(await waiting).toBe(true)
    expect(authorization.input).toEqual(finalInput)
  })

  it('a withheld turn that failed will not be granted, and says so; one aborted while waiting neither', async () => {
    const failed = createWithheldAuthorization(now)
    const usage = { prompt_tokens: 3, completion_tokens: 2 }
    expect(
      await awaitGrant(
        failed,
        { interrupted: false, error: new Error('x'), usage },
        new AbortController().signal,
      ),
    ).toBe(false)
    expect(failed.withheld).toMatchObject({ failed: true, usage })

    const dropped = createWithheldAuthorization(now)
    const controller = new AbortController()
    const waiting = awaitGrant(dropped, ended, controller.signal)
    controller.abort({ kind: 'not_granted' })
    expect(await waiting).toBe(false)
    expect(dropped.withheld.failed).toBe(false)
  })
})
