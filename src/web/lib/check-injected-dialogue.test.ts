import { describe, expect, it } from 'vitest'
import { checkInjectedDialogue } from './check-injected-dialogue.js'

describe('checkInjectedDialogue', () => {
  it('accepts alternating pairs', () => {
    const result = checkInjectedDialogue([
      { role: 'user', content: '你好' },
      { role: 'assistant', content: '你好呀' },
    ])
    expect(result.warnings).toEqual([])
    expect(result.rowWarnings.size).toBe(0)
  })

  it('warns about an odd count and roles that do not alternate, per row', () => {
    const result = checkInjectedDialogue([
      { role: 'user', content: 'a' },
      { role: 'user', content: 'b' },
      { role: 'assistant', content: 'c' },
    ])
    expect(result.warnings).toEqual([
      { key: 'dialogue.oddCount', parameters: { count: 3 } },
      { key: 'dialogue.notAlternating' },
    ])
    expect([...result.rowWarnings.entries()]).toEqual([
      [1, { key: 'dialogue.sameRole', parameters: { role: 'user' } }],
    ])
  })

  it('flags a first assistant row and empty content', () => {
    const result = checkInjectedDialogue([{ role: 'assistant', content: ' ' }])
    expect(result.rowWarnings.get(0)).toEqual({ key: 'dialogue.emptyContent' })
  })
})
