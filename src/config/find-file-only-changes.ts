/**
 * Settings that decide what the server reads, writes or listens on belong to whoever writes the
 * config file, not to whoever can call the admin API: folders attachments are read from, where the
 * stores keep their files and connect, the address the server binds. A change through the API that
 * alters one is refused with an issue naming the field; the file (and its hot reload) still sets them.
 */
import { isDeepStrictEqual } from 'node:util'
import type { ConfigIssue } from '../shared/errors.js'

/** Paths of the file-only fields (a section name covers the whole section). */
export const fileOnlyFieldPaths: readonly (readonly string[])[] = [
  ['server', 'host'],
  ['server', 'port'],
  ['assets', 'dirs'],
  ['storage'],
  ['characters_dir'],
  ['connectors'],
]

export interface FindFileOnlyChangesOptions {
  /** The file's content a change would write. */
  candidate: unknown
  /** The file's content now. */
  running: unknown
}

/** One issue per file-only field whose value differs between `running` and `candidate` (raw file contents). */
export function findFileOnlyChanges(options: FindFileOnlyChangesOptions): ConfigIssue[] {
  const issues: ConfigIssue[] = []
  for (const path of fileOnlyFieldPaths) {
    const before = readPath(options.running, path)
    const after = readPath(options.candidate, path)
    if (isDeepStrictEqual(before, after)) continue
    const beforeSection = before === undefined ? {} : before
    const afterSection = after === undefined ? {} : after
    const keys =
      isRecord(beforeSection) && isRecord(afterSection)
        ? [...new Set([...Object.keys(beforeSection), ...Object.keys(afterSection)])].filter(
            (key) => !isDeepStrictEqual(beforeSection[key], afterSection[key]),
          )
        : []
    const changed = keys.length > 0 ? keys.map((key) => [...path, key]) : [path]
    for (const field of changed) issues.push({ path: field.join('.'), message: fileOnlyMessage })
  }
  issues.push(...findStdioServerChanges(options))
  return issues
}

const stdioFields = ['command', 'args', 'env', 'cwd'] as const

/**
 * A stdio MCP server is a program the server starts: adding one, or changing what it runs and how
 * (`command`, `args`, `env`, `cwd`), through the API would let anyone who reaches it run programs.
 * Removing one, or changing its other settings, is fine.
 */
function findStdioServerChanges(options: FindFileOnlyChangesOptions): ConfigIssue[] {
  const path = ['tools', 'mcp_servers']
  const before = readPath(options.running, path)
  const after = readPath(options.candidate, path)
  if (!isRecord(after)) return []
  const issues: ConfigIssue[] = []
  for (const [name, server] of Object.entries(after)) {
    if (!isRecord(server)) continue
    const previous = isRecord(before) && isRecord(before[name]) ? before[name] : undefined
    const stdio = 'command' in server || (previous !== undefined && 'command' in previous)
    if (!stdio) continue
    for (const field of stdioFields) {
      if (isDeepStrictEqual(previous?.[field], server[field])) continue
      issues.push({ path: [...path, name, field].join('.'), message: stdioMessage })
    }
  }
  return issues
}

const stdioMessage = 'can only be set in the config file (a stdio MCP server is a program the server starts)'

const fileOnlyMessage =
  'can only be changed in the config file (it decides what the server reads, writes or listens on)'

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
}

function readPath(value: unknown, path: readonly string[]): unknown {
  let current = value
  for (const key of path) {
    if (current === null || typeof current !== 'object' || !Object.hasOwn(current, key)) return undefined
    current = (current as Record<string, unknown>)[key]
  }
  return current
}
