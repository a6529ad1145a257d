/**
 * The JSON Schema of config.yaml (`config.schema.json`, generated from the zod schema at build time)
 * and a lookup of the node for one dotted path, so forms read labels' descriptions, defaults,
 * bounds and enums from the one schema.
 */
export interface JsonSchemaNode {
  type?: string | string[]
  description?: string
  default?: unknown
  enum?: unknown[]
  minimum?: number
  maximum?: number
  exclusiveMinimum?: number
  exclusiveMaximum?: number
  minLength?: number
  properties?: Record<string, JsonSchemaNode>
  additionalProperties?: JsonSchemaNode | boolean
  items?: JsonSchemaNode
  anyOf?: JsonSchemaNode[]
  required?: string[]
}

/** The node itself, or for a nullable `anyOf: [X, null]` the non-null branch. */
export function unwrapNullable(node: JsonSchemaNode | undefined): JsonSchemaNode | undefined {
  if (!node?.anyOf) return node
  const branch = node.anyOf.find((candidate) => candidate.type !== 'null')
  return branch ? { ...branch, description: node.description ?? branch.description } : node
}

/** Walks `properties`, `items` (numeric keys) and `additionalProperties` (any other key). */
export function findSchemaNode(root: JsonSchemaNode | undefined, path: string): JsonSchemaNode | undefined {
  let node = unwrapNullable(root)
  if (!path) return node
  for (const key of path.split('.')) {
    if (!node) return undefined
    if (node.properties && key in node.properties) node = unwrapNullable(node.properties[key])
    else if (node.items && /^\d+$/.test(key)) node = unwrapNullable(node.items)
    else if (node.additionalProperties && typeof node.additionalProperties === 'object')
      node = unwrapNullable(node.additionalProperties)
    else return undefined
  }
  return node
}

export function isNumberNode(node: JsonSchemaNode | undefined): boolean {
  return node?.type === 'number' || node?.type === 'integer'
}
