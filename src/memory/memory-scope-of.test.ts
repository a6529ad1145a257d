import { describe, expect, it } from 'vitest'
import { memoryScopeOf, migrateLegacyScope } from './memory-scope-of.js'

describe('memoryScopeOf', () => {
  it('gives every conversation its own scope, whatever the ids hold', () => {
    const conversations = [
      { character: 'nova', session: 'alice' },
      { session: 'nova:alice' },
      { session: 'nova%3Aalice' },
      { character: 'nova', session: 'alice:x' },
      { character: 'nova:alice', session: 'x' },
      { session: 'nova:alice:x' },
      { character: 'a%', session: 'b' },
      { character: 'a', session: '%b' },
      { session: 'a%:b' },
      { session: 'default' },
    ]
    const scopes = conversations.map((conversation) => memoryScopeOf(conversation))
    expect(new Set(scopes).size).toBe(conversations.length)
  })

  it('keeps the scopes memories always had where no id holds `:` or `%`', () => {
    expect(memoryScopeOf({ session: 'alice' })).toBe('alice')
    expect(memoryScopeOf({ character: 'nova', session: 'alice' })).toBe('nova:alice')
    expect(memoryScopeOf({ session: 'nova:alice' })).toBe('nova%3Aalice')
  })
})

describe('migrateLegacyScope', () => {
  it("reads a configured character's prefix as the character, anything else as the default's session", () => {
    expect(migrateLegacyScope('nova:alice', ['nova'])).toBe('nova:alice')
    expect(migrateLegacyScope('onebot:bot:group:1', ['nova'])).toBe('onebot%3Abot%3Agroup%3A1')
    expect(migrateLegacyScope('50%', ['nova'])).toBe('50%25')
    expect(migrateLegacyScope('alice', ['nova'])).toBe('alice')
    // Without the character ids, a scope with `:` stays a character's.
    expect(migrateLegacyScope('onebot:bot', undefined)).toBe('onebot:bot')
  })
})
