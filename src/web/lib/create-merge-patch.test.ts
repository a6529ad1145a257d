import { describe, expect, it } from 'vitest'
import { createMergePatch } from './create-merge-patch.js'

describe('createMergePatch', () => {
  it('marks keys removed from mappings with null, at any depth', () => {
    expect(
      createMergePatch(
        { emotion_aliases: { sad: '难过' }, name: '小雪' },
        { emotion_aliases: { happy: '开心', sad: '难过' }, name: '小雪', persona: 'x' },
      ),
    ).toEqual({ emotion_aliases: { sad: '难过', happy: null }, name: '小雪', persona: null })
  })

  it('marks a removed key named after an Object.prototype member with null too', () => {
    // The keys are the user's own (an emotion alias named `toString`, deleted in the page).
    expect(
      createMergePatch(
        { emotion_aliases: { sad: '难过' } },
        { emotion_aliases: { toString: '开心', valueOf: '平静', sad: '难过' } },
      ),
    ).toEqual({ emotion_aliases: { sad: '难过', toString: null, valueOf: null } })
  })

  it('sends arrays and scalars as they are', () => {
    expect(createMergePatch({ emotions: ['开心'] }, { emotions: ['开心', '难过'] })).toEqual({
      emotions: ['开心'],
    })
    expect(createMergePatch(null, { model: 'x' })).toBeNull()
  })
})
