import { describe, expect, it } from 'vitest'
import { laneKeyOf, parseLaneKey } from './lane-key.js'

describe('lane keys', () => {
  it('name the default character lane by the session alone', () => {
    expect(laneKeyOf('s1', undefined)).toBe('s1')
    expect(parseLaneKey('s1')).toEqual({ session: 's1', character: undefined })
  })

  it('give back the session and the character they were made of', () => {
    expect(parseLaneKey(laneKeyOf('room:1', 'alice'))).toEqual({ session: 'room:1', character: 'alice' })
  })

  it('keep a session and a character apart however their names read', () => {
    expect(laneKeyOf('a', 'bc')).not.toBe(laneKeyOf('ab', 'c'))
  })
})
