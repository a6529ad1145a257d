/**
 * Walks every field of the config schema: each one holding an address, a path, a program or a
 * secret must be known to the trust gate's table, and each rule of the table must be enforced by
 * the check that implements it. A new field of that kind without an entry fails here, so it cannot
 * be forgotten the way the MCP `url` once was.
 */
import { describe, expect, it } from 'vitest'
import { boundSecretFieldPaths } from '../bind-secrets-to-hosts.js'
import { fileOnlyFieldPaths } from '../find-file-only-changes.js'
import { outboundUrlFieldPaths } from '../find-forbidden-url-targets.js'
import { configSchema, secretFieldPaths } from '../schema.js'
import { configFieldTrust, findFieldTrust, listFieldPaths } from './config-field-trust.js'

interface Leaf {
  path: string
  type: string
  format?: string
}

type SchemaNode = { def: Record<string, unknown> & { type: string } }

const wrappers = new Set(['default', 'prefault', 'nullable', 'optional', 'readonly', 'catch', 'nonoptional'])

/** Every leaf field of the schema, `*` for list items and map entries. */
function walkSchema(node: SchemaNode, path: string[], leaves: Leaf[]): Leaf[] {
  const { def } = node
  if (wrappers.has(def.type)) return walkSchema(def.innerType as SchemaNode, path, leaves)
  if (def.type === 'pipe') return walkSchema(def.in as SchemaNode, path, leaves)
  if (def.type === 'object') {
    for (const [key, child] of Object.entries(def.shape as Record<string, SchemaNode>))
      walkSchema(child, [...path, key], leaves)
  } else if (def.type === 'record') walkSchema(def.valueType as SchemaNode, [...path, '*'], leaves)
  else if (def.type === 'array') walkSchema(def.element as SchemaNode, [...path, '*'], leaves)
  else if (def.type === 'union')
    for (const option of def.options as SchemaNode[]) walkSchema(option, path, leaves)
  else
    leaves.push({
      path: path.join('.'),
      type: def.type,
      ...(def.format ? { format: String(def.format) } : {}),
    })
  return leaves
}

const leaves = walkSchema(configSchema as unknown as SchemaNode, [], [])

// Names that say a field holds an address, a path, a program or a secret.
const sensitiveName =
  /(^|_)(url|urls|uri|host|port|dir|dirs|path|file|folder|command|args|cwd|env|key|token|secret|password|headers|avatar)$/

/** The field's own name: the last segment that is not `*`. */
const nameOf = (path: string) =>
  path
    .split('.')
    .filter((key) => key !== '*')
    .at(-1) ?? ''

const sensitive = leaves.filter(
  (leaf) => sensitiveName.test(nameOf(leaf.path)) || leaf.format === 'url' || leaf.path.includes('.headers.'),
)

const joined = (paths: readonly (readonly string[])[]) => paths.map((path) => path.join('.'))

/** True when `path` is one of `paths` or lies inside one of them (a section). */
const coveredBy = (path: string, paths: readonly string[]) =>
  paths.some((given) => path === given || path.startsWith(`${given}.`))

describe('the trust gate knows every sensitive config field', () => {
  it('finds the fields it must (the walk itself works)', () => {
    const found = sensitive.map((leaf) => leaf.path)
    for (const path of [
      'llm.base_url',
      'tools.mcp_servers.*.url',
      'tools.mcp_servers.*.command',
      'assets.dirs.*',
    ])
      expect(found).toContain(path)
    expect(found).toContain('tools.mcp_servers.*.headers.*')
    expect(found).not.toContain('llm.temperature')
  })

  it.each(sensitive.map((leaf) => [leaf.path]))('%s has an entry in configFieldTrust', (path) => {
    const trust = findFieldTrust(path)
    expect(
      trust,
      `${path} holds an address, a path, a program or a secret: add it to configFieldTrust`,
    ).toBeDefined()
    expect(trust!.rules.length).toBeGreaterThan(0)
  })

  it('every entry names a field of the schema', () => {
    const paths = leaves.map((leaf) => leaf.path)
    for (const field of configFieldTrust)
      expect(
        coveredBy(field.path, paths) || paths.some((path) => path.startsWith(`${field.path}.`)),
        field.path,
      ).toBe(true)
  })
})

describe('each rule of the table is enforced', () => {
  it('outbound-url: the outbound address check covers exactly those fields', () => {
    expect(joined(outboundUrlFieldPaths).sort()).toEqual(joined(listFieldPaths('outbound-url')).sort())
    for (const leaf of sensitive.filter((leaf) => findFieldTrust(leaf.path)?.kind === 'url')) {
      const rules = findFieldTrust(leaf.path)!.rules
      // A URL is either checked as an outbound target, the file's alone, or never requested.
      expect(
        rules.some((rule) => ['outbound-url', 'file-only', 'not-fetched'].includes(rule)),
        leaf.path,
      ).toBe(true)
    }
  })

  it('file-only: the file-only check covers every such field', () => {
    const plain = joined(fileOnlyFieldPaths)
    for (const path of joined(listFieldPaths('file-only'))) {
      if (path.startsWith('tools.mcp_servers.*.')) continue // the stdio fields, checked per server
      expect(coveredBy(path, plain), path).toBe(true)
    }
  })

  it('programs and paths are never taken from outside the file', () => {
    for (const leaf of sensitive) {
      const trust = findFieldTrust(leaf.path)!
      if (trust.kind === 'program' || trust.kind === 'path' || trust.kind === 'address')
        expect(trust.rules, leaf.path).toContain('file-only')
    }
  })

  it('masked: the schema marks them secret; bound-to-host: the binding guards them', () => {
    const masked = joined(secretFieldPaths)
    for (const path of joined(listFieldPaths('masked'))) {
      expect(
        masked.some((given) => given === path || given.startsWith(`${path}.`)),
        path,
      ).toBe(true)
    }
    expect(joined(boundSecretFieldPaths).sort()).toEqual(joined(listFieldPaths('bound-to-host')).sort())
    for (const leaf of sensitive.filter((leaf) => findFieldTrust(leaf.path)?.kind === 'secret')) {
      const rules = findFieldTrust(leaf.path)!.rules
      expect(rules.includes('masked'), `${leaf.path} is a secret: mask it`).toBe(true)
    }
  })
})
