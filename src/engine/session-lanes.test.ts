import { describe, expect, it } from 'vitest'
import { createSessionLanes, createTurnHandle } from './session-lanes.js'

describe('createSessionLanes', () => {
  it('lets a turn start once the one before it in its lane has left', async () => {
    const lanes = createSessionLanes()
    const first = createTurnHandle('s', false)
    const second = createTurnHandle('s', false)
    await lanes.enter(first, 'queue')
    let started = false
    const waiting = lanes.enter(second, 'queue').then(() => {
      started = true
    })
    await Promise.resolve()
    expect(started).toBe(false)
    lanes.leave(first)
    await waiting
    expect(started).toBe(true)
    expect(first.controller.signal.aborted).toBe(false)
  })

  it('interrupt mode aborts every turn already in the lane, with the reason new_input', () => {
    const lanes = createSessionLanes()
    const first = createTurnHandle('s', false)
    const other = { ...createTurnHandle('s', false), character: 'b' }
    void lanes.enter(first, 'queue')
    void lanes.enter(other, 'queue')
    void lanes.enter(createTurnHandle('s', false), 'interrupt')
    expect(first.controller.signal.reason).toEqual({ kind: 'new_input' })
    // Another character's lane of the same session is not touched.
    expect(other.controller.signal.aborted).toBe(false)
  })

  it('repliesOf leaves out prepared turns; turnsOf lists them', () => {
    const lanes = createSessionLanes()
    const prepared = createTurnHandle('s', true)
    const reply = createTurnHandle('s', false)
    void lanes.enter(prepared, 'queue')
    void lanes.enter(reply, 'queue')
    expect(lanes.turnsOf('s')).toEqual([prepared, reply])
    expect(lanes.repliesOf('s')).toEqual([reply])
    expect(lanes.repliesOf('s', '')).toEqual([reply])
    lanes.leave(prepared)
    lanes.leave(reply)
    expect(lanes.sessions()).toEqual([])
  })
})
