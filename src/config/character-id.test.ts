import { describe, expect, it } from 'vitest'
import { characterIdOf, pinCharacterIdOnRename } from './character-id.js'

describe('character id', () => {
  it('is the id when set, else the name', () => {
    expect(characterIdOf({ id: 'xue', name: '小雪' })).toBe('xue')
    expect(characterIdOf({ id: '', name: '小雪' })).toBe('小雪')
  })

  it('pins the old name only for a rename of a character without an id', () => {
    expect(pinCharacterIdOnRename({ running: { id: '', name: '甲' }, next: { id: '', name: '乙' } })).toBe(
      '甲',
    )
    expect(pinCharacterIdOnRename({ running: { id: '', name: '甲' }, next: { id: '', name: '甲' } })).toBe(
      undefined,
    )
    expect(pinCharacterIdOnRename({ running: { id: 'a', name: '甲' }, next: { id: 'a', name: '乙' } })).toBe(
      undefined,
    )
    expect(pinCharacterIdOnRename({ running: { id: '', name: '甲' }, next: { id: 'new', name: '乙' } })).toBe(
      undefined,
    )
  })
})
