import { describe, expect, it } from 'vitest'
import type { StoredMessage } from '../../memory/types.js'
import { findRegeneratedTurn } from './find-regenerated-turn.js'

const message = (role: 'user' | 'assistant', content: string, turn: string): StoredMessage => ({
  role,
  content,
  turn,
  createdAt: 0,
})
const stored = [
  message('user', 'Hi', 't1'),
  message('assistant', 'Hello!', 't1'),
  message('user', 'Tell me a joke', 't2'),
  message('assistant', 'Why did the barista…', 't2'),
]

describe('findRegeneratedTurn', () => {
  it('the same last question without its reply in the client history is a regenerate', () => {
    const clientHistory = [
      { role: 'user' as const, content: 'Hi' },
      { role: 'assistant' as const, content: '<|ACT {"emotion":{"name":"happy","intensity":1}}|>Hello!' },
    ]
    expect(findRegeneratedTurn({ stored, text: 'Tell me a joke', clientHistory })).toBe('t2')
  })

  it('the same question after its reply is a new turn (said twice)', () => {
    const clientHistory = [
      { role: 'user' as const, content: 'Tell me a joke' },
      { role: 'assistant' as const, content: '[joy]Why did the barista…' },
    ]
    expect(findRegeneratedTurn({ stored, text: 'Tell me a joke', clientHistory })).toBeUndefined()
  })

  it('another question, a client without history, or an empty session: a new turn', () => {
    expect(findRegeneratedTurn({ stored, text: 'Another', clientHistory: [] })).toBeUndefined()
    expect(findRegeneratedTurn({ stored, text: 'Tell me a joke', clientHistory: undefined })).toBeUndefined()
    expect(findRegeneratedTurn({ stored: [], text: 'Hi', clientHistory: [] })).toBeUndefined()
  })

  it('the first question of a session asked again with no history is a regenerate', () => {
    expect(findRegeneratedTurn({ stored: stored.slice(0, 2), text: 'Hi', clientHistory: [] })).toBe('t1')
  })
})
