/**
 * Walks the config schema along a field path, through defaults, prefaults, nullables, records and
 * list items (`llm.fallbacks.0`), so callers can ask what kind of field a path names (e.g. whether
 * it is a free-keyed map, or which fields a section knows).
 */
import type { z } from 'zod'
import { configSchema } from './schema.js'

type SchemaNode = z.core.$ZodType & { def: Record<string, unknown> & { type: string } }

function unwrap(node: SchemaNode): SchemaNode {
  let current = node
  while (['default', 'prefault', 'nullable', 'optional'].includes(current.def.type)) {
    current = current.def.innerType as SchemaNode
  }
  return current
}

/** The schema of the field at `path` (wrappers removed), or undefined when no such field exists. */
export function findSchemaField(path: readonly string[]): SchemaNode | undefined {
  let node = unwrap(configSchema as unknown as SchemaNode)
  for (const key of path) {
    if (node.def.type === 'object') {
      // Own fields only: `toString` in a body is an unknown field, not Object.prototype's.
      const shape = node.def.shape as Record<string, SchemaNode>
      if (!Object.hasOwn(shape, key)) return undefined
      node = unwrap(shape[key]!)
    } else if (node.def.type === 'record') {
      node = unwrap(node.def.valueType as SchemaNode)
    } else if (node.def.type === 'array' && /^\d+$/.test(key)) {
      node = unwrap(node.def.element as SchemaNode)
    } else {
      return undefined
    }
  }
  return node
}

/** True when the field at `path` is a map with free keys (emotion aliases, processor settings). */
export function isMapField(path: readonly string[]): boolean {
  return findSchemaField(path)?.def.type === 'record'
}
