import { describe, expect, it } from 'vitest'
import * as z from 'zod'
import { configSchema } from '../../config/schema.js'
import { findSchemaNode, type JsonSchemaNode } from './json-schema-node.js'

// The page reads the schema the build writes; this is the same call.
const schema = z.toJSONSchema(configSchema, { io: 'input' }) as JsonSchemaNode

describe('findSchemaNode', () => {
  it('finds fields, list items, record values and nullable sections of the config schema', () => {
    expect(findSchemaNode(schema, 'llm.temperature')).toMatchObject({
      type: 'number',
      maximum: 2,
      default: 0.8,
    })
    expect(findSchemaNode(schema, 'character.reply_format')?.enum).toContain('prefix')
    expect(findSchemaNode(schema, 'llm.fallbacks.0.provider')?.type).toBe('string')
    expect(findSchemaNode(schema, 'character.emotion_aliases.happy')?.type).toBe('string')
    expect(findSchemaNode(schema, 'memory.embeddings.model')?.default).toBe('text-embedding-3-small')
    expect(findSchemaNode(schema, 'pipeline.processors.regex-processor.enabled')?.type).toBe('boolean')
    expect(findSchemaNode(schema, 'character.nope')).toBeUndefined()
  })
})
