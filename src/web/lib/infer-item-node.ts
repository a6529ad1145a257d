/**
 * A row schema for a processor option typed `json` that holds a list of flat objects (regex rules,
 * depth injections, anchors), taken from the rows themselves or, for an empty list, from a known
 * template, so such lists get the row editor instead of raw JSON.
 */
import type { JsonSchemaNode } from './json-schema-node.js'

const knownItemTemplates: Record<string, Record<string, unknown>> = {
  rules: { pattern: '', flags: 'g', replacement: '', scope: 'input', enabled: true },
  depth_injections: { role: 'system', content: '', depth: 0 },
  anchors: { position: 'before_history', role: 'system', content: '' },
}
const knownEnums: Record<string, string[]> = {
  scope: ['input', 'history', 'output-display'],
  role: ['system', 'user', 'assistant'],
  position: ['before_persona', 'after_persona', 'before_history', 'after_history'],
}

/** Undefined when the value is not a list of flat objects (the caller shows raw JSON instead). */
export function inferItemNode(key: string, rows: unknown[]): JsonSchemaNode | undefined {
  const isFlatObject = (row: unknown): row is Record<string, unknown> =>
    row !== null &&
    typeof row === 'object' &&
    !Array.isArray(row) &&
    Object.values(row).every((value) => value === null || typeof value !== 'object')
  if (!rows.every(isFlatObject)) return undefined
  const template = knownItemTemplates[key]
  const samples: Record<string, unknown>[] = [...rows, ...(template ? [template] : [])]
  if (samples.length === 0) return undefined
  const properties: Record<string, JsonSchemaNode> = {}
  for (const sample of samples) {
    for (const [property, value] of Object.entries(sample)) {
      if (properties[property]) continue
      const type = typeof value === 'boolean' ? 'boolean' : typeof value === 'number' ? 'number' : 'string'
      const allowed = knownEnums[property]
      properties[property] = {
        type,
        enum: allowed && (value === undefined || allowed.includes(String(value))) ? allowed : undefined,
        default: template?.[property],
      }
    }
  }
  return { type: 'object', properties }
}
