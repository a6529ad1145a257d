import { describe, expect, it } from 'vitest'
import { configSchema } from '../config/schema.js'
import { resolveProcessorSettings } from './resolve-processor-settings.js'

describe('resolveProcessorSettings', () => {
  const config = configSchema.parse({
    llm: { processors: { memory: { enabled: false } } },
    pipeline: { processors: { history: { priority: 5 } } },
  })

  it("takes the character's entry, else the model's, else none", () => {
    expect(resolveProcessorSettings(config, 'history')).toEqual({
      settings: { priority: 5 },
      origin: 'pipeline',
    })
    expect(resolveProcessorSettings(config, 'memory')).toEqual({
      settings: { enabled: false },
      origin: 'llm',
    })
    expect(resolveProcessorSettings(config, 'persona')).toEqual({ settings: {}, origin: 'none' })
  })

  it('finds no settings for an id named after an Object.prototype member', () => {
    for (const id of ['toString', 'valueOf', 'constructor', '__proto__'])
      expect(resolveProcessorSettings(config, id)).toEqual({ settings: {}, origin: 'none' })
  })
})
