import { describe, expect, it } from 'vitest'
import { findSchemaField, isMapField } from './find-schema-field.js'

describe('findSchemaField', () => {
  it('finds fields through defaults, records and nullables', () => {
    expect(findSchemaField(['llm', 'timeout_ms'])?.def.type).toBe('number')
    expect(findSchemaField(['character', 'emotion_aliases', 'happy'])?.def.type).toBe('string')
    expect(findSchemaField(['memory', 'embeddings', 'model'])?.def.type).toBe('string')
    expect(findSchemaField(['llm', 'no_such_field'])).toBeUndefined()
  })

  it('tells free-keyed maps from sections', () => {
    expect(isMapField(['character', 'emotion_aliases'])).toBe(true)
    expect(isMapField(['pipeline', 'processors'])).toBe(true)
    expect(isMapField(['character'])).toBe(false)
    expect(isMapField(['memory', 'embeddings'])).toBe(false)
  })
})
