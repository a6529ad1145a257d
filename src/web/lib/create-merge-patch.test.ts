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

  it('sends arrays and scalars as they are', () => {
    expect(createMergePatch({ emotions: ['开心'] }, { emotions: ['开心', '难过'] })).toEqual({
      emotions: ['开心'],
    })
    expect(createMergePatch(null, { model: 'x' })).toBeNull()
  })
})
