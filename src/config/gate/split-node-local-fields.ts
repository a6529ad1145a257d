/**
 * The fields each server of a cluster keeps for itself: the file-only ones (what it reads, writes,
 * listens on and runs: folders, storage, its address, stdio MCP programs) and the node-local ones
 * (its tokens, its cluster settings). A shared config version carries none of them: they are taken
 * out before a version is shared, a version that holds one is refused, and an adopted version gets
 * the server's own back.
 */
import type { ConfigIssue } from '../../shared/errors.js'
import type { CharpipeConfig } from '../schema.js'
import { listFieldPaths } from './config-field-trust.js'

type Mapping = Record<string, unknown>

const ownPaths = [...listFieldPaths('file-only'), ...listFieldPaths('node-local')]
// Paths outside maps; the `*` ones are the fields of a stdio MCP server, which is kept whole.
const plainPaths = ownPaths.filter((path) => !path.includes('*'))

function isMapping(value: unknown): value is Mapping {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
}

function isStdioServer(server: unknown): boolean {
  return isMapping(server) && ['command', 'args', 'env', 'cwd'].some((field) => field in server)
}

function readMcpServers(config: unknown): Mapping {
  const tools = isMapping(config) ? config.tools : undefined
  const servers = isMapping(tools) ? tools.mcp_servers : undefined
  return isMapping(servers) ? servers : {}
}

/** One issue per field of this server's own that a shared version holds. */
export function findNodeLocalFields(shared: unknown): ConfigIssue[] {
  const issues: ConfigIssue[] = []
  for (const path of plainPaths) {
    if (readPath(shared, path) !== undefined)
      issues.push({ path: path.join('.'), message: "is each server's own: a shared version may not set it" })
  }
  for (const [name, server] of Object.entries(readMcpServers(shared))) {
    if (isStdioServer(server))
      issues.push({
        path: `tools.mcp_servers.${name}.command`,
        message:
          "a stdio MCP server is a program each server's config file names: a shared version may not add one",
      })
  }
  return issues
}

/** `config` without this server's own fields: what it shares. */
export function removeNodeLocalFields(config: CharpipeConfig): Mapping {
  const copy = structuredClone(config) as unknown as Mapping
  for (const path of plainPaths) removePath(copy, path)
  const servers = readMcpServers(copy)
  for (const [name, server] of Object.entries(servers)) if (isStdioServer(server)) delete servers[name]
  return copy
}

/** A shared version with this server's own fields (from `own`, its running config) put back. */
export function putBackNodeLocalFields(shared: Mapping, own: CharpipeConfig): Mapping {
  const copy = structuredClone(shared)
  for (const path of plainPaths) {
    const value = readPath(own, path)
    if (value !== undefined) writePath(copy, path, structuredClone(value))
  }
  const servers = readMcpServers(own)
  for (const [name, server] of Object.entries(servers)) {
    if (isStdioServer(server)) writePath(copy, ['tools', 'mcp_servers', name], structuredClone(server))
  }
  return copy
}

function readPath(value: unknown, path: readonly string[]): unknown {
  let current = value
  for (const key of path) {
    if (!isMapping(current) || !Object.hasOwn(current, key)) return undefined
    current = current[key]
  }
  return current
}

function removePath(value: Mapping, path: readonly string[]): void {
  const parent = readPath(value, path.slice(0, -1))
  if (isMapping(parent)) delete parent[path.at(-1)!]
}

function writePath(value: Mapping, path: readonly string[], item: unknown): void {
  let holder = value
  for (const key of path.slice(0, -1)) {
    if (!isMapping(holder[key])) holder[key] = {}
    holder = holder[key] as Mapping
  }
  holder[path.at(-1)!] = item
}
