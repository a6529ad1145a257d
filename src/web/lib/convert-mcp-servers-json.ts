/**
 * The `mcpServers` JSON that MCP servers document (`{"mcpServers": {"name": {"command", "args",
 * "env"}}}`, or the map of servers itself), pasted into the page, as `tools.mcp_servers` entries.
 * Remote entries (`url`) can be applied through `PUT /api/config`. Entries that run a program
 * (`command`) are taken from config.yaml only (the admin API refuses them, so reaching the page is
 * not enough to start programs on the server's machine), and so are entries using `${VAR}`, which
 * only the config file expands: both come back as YAML to paste into config.yaml. Problems are
 * message keys with their values, worded in the page's language when shown.
 */
import type { MessageParameters } from './i18n.js'
import type { MessageKey } from './page-messages.js'

export interface McpImportIssue {
  key: MessageKey
  parameters?: MessageParameters
}

export type McpServerEntry = Record<string, unknown>

export interface ConvertMcpServersJsonResult {
  /** Entries the admin API accepts, by name. */
  remote: Record<string, McpServerEntry>
  /** Entries for config.yaml only (stdio servers, `${VAR}` values), by name. */
  fileOnly: Record<string, McpServerEntry>
  /** `fileOnly` as YAML under `tools.mcp_servers`; empty when there is none. */
  yaml: string
  /** What was left out (unknown fields, disabled servers); the rest still applies. */
  notes: McpImportIssue[]
  /** Why nothing can be applied; when set, the other fields are empty. */
  errors: McpImportIssue[]
}

const namePattern = /^[A-Za-z0-9_.-]{1,64}$/
const stdioFields = ['command', 'args', 'env', 'cwd']
const remoteFields = ['url', 'headers']
const commonFields = ['type', 'include', 'exclude', 'prefix', 'timeout_ms', 'max_result_chars']
// Fields clients add for their own use; they mean nothing here and are left out without a note.
const clientFields = new Set(['disabled', 'autoApprove', 'alwaysAllow', 'description', 'transportType'])

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)
const isStringList = (value: unknown) =>
  Array.isArray(value) && value.every((item) => typeof item === 'string')
const isStringMap = (value: unknown) =>
  isObject(value) && Object.values(value).every((item) => typeof item === 'string')

/** The map of servers in what was pasted, or the issue that says why there is none. */
function findServerMap(text: string): { map: Record<string, unknown> } | { issue: McpImportIssue } {
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch (error) {
    return { issue: { key: 'mcpImport.badJson', parameters: { message: (error as Error).message } } }
  }
  if (!isObject(parsed)) return { issue: { key: 'mcpImport.notObject' } }
  const wrapped = parsed.mcpServers ?? parsed.servers
  const map = wrapped === undefined ? parsed : wrapped
  if (!isObject(map)) return { issue: { key: 'mcpImport.notObject' } }
  if (Object.keys(map).length === 0) return { issue: { key: 'mcpImport.empty' } }
  return { map }
}

const expectations: Record<string, [check: (value: unknown) => boolean, expected: string]> = {
  command: [(value) => typeof value === 'string' && value !== '', 'a non-empty string'],
  args: [isStringList, 'a list of strings'],
  env: [isStringMap, 'an object of strings'],
  cwd: [(value) => typeof value === 'string', 'a string'],
  url: [(value) => typeof value === 'string' && /^https?:\/\//i.test(value), 'an http(s) URL'],
  headers: [isStringMap, 'an object of strings'],
  type: [(value) => typeof value === 'string', 'a string'],
  include: [isStringList, 'a list of strings'],
  exclude: [isStringList, 'a list of strings'],
  prefix: [(value) => typeof value === 'string', 'a string'],
  timeout_ms: [(value) => Number.isInteger(value) && (value as number) > 0, 'a positive whole number'],
  max_result_chars: [(value) => Number.isInteger(value) && (value as number) > 0, 'a positive whole number'],
}

/** One pasted entry as a `tools.mcp_servers` entry, with its issues. */
function convertEntry(name: string, raw: unknown, errors: McpImportIssue[], notes: McpImportIssue[]) {
  if (!namePattern.test(name)) {
    errors.push({ key: 'mcpImport.badName', parameters: { name } })
    return undefined
  }
  if (!isObject(raw) || (typeof raw.command !== 'string' && typeof raw.url !== 'string')) {
    errors.push({ key: 'mcpImport.badEntry', parameters: { name } })
    return undefined
  }
  if (raw.disabled === true) {
    notes.push({ key: 'mcpImport.disabled', parameters: { name } })
    return undefined
  }
  const stdio = typeof raw.command === 'string'
  const known = [...(stdio ? stdioFields : remoteFields), ...commonFields]
  const entry: McpServerEntry = {}
  const ignored: string[] = []
  for (const [field, value] of Object.entries(raw)) {
    if (!known.includes(field)) {
      if (!clientFields.has(field)) ignored.push(field)
      continue
    }
    const [check, expected] = expectations[field]!
    if (!check(value)) errors.push({ key: 'mcpImport.badField', parameters: { name, field, expected } })
    else entry[field] = value
  }
  // Cline writes the older transport as `transportType: "sse"`.
  if (!stdio && raw.transportType === 'sse' && entry.type === undefined) entry.type = 'sse'
  if (entry.type === 'stdio' && !stdio) errors.push({ key: 'mcpImport.badEntry', parameters: { name } })
  if (ignored.length > 0)
    notes.push({ key: 'mcpImport.ignored', parameters: { name, fields: ignored.join(', ') } })
  return { entry, stdio }
}

/** Entries as YAML: JSON is YAML's flow style, so lists, maps and quoted strings stay exact. */
function renderYaml(entries: Record<string, McpServerEntry>): string {
  const lines = ['tools:', '  mcp_servers:']
  for (const [name, entry] of Object.entries(entries)) {
    // A name that YAML would read as something else (`-x`, `.x`) is quoted.
    lines.push(`    ${/^[A-Za-z0-9_]/.test(name) ? name : JSON.stringify(name)}:`)
    for (const [field, value] of Object.entries(entry)) lines.push(`      ${field}: ${JSON.stringify(value)}`)
  }
  return `${lines.join('\n')}\n`
}

export function convertMcpServersJson(text: string): ConvertMcpServersJsonResult {
  const empty = { remote: {}, fileOnly: {}, yaml: '', notes: [] }
  const found = findServerMap(text)
  if ('issue' in found) return { ...empty, errors: [found.issue] }
  const errors: McpImportIssue[] = []
  const notes: McpImportIssue[] = []
  const remote: Record<string, McpServerEntry> = {}
  const fileOnly: Record<string, McpServerEntry> = {}
  for (const [name, raw] of Object.entries(found.map)) {
    const converted = convertEntry(name, raw, errors, notes)
    if (!converted) continue
    const needsFile = converted.stdio || JSON.stringify(converted.entry).includes('${')
    ;(needsFile ? fileOnly : remote)[name] = converted.entry
  }
  if (errors.length > 0) return { ...empty, errors }
  if (Object.keys(remote).length + Object.keys(fileOnly).length === 0)
    return { ...empty, notes, errors: [{ key: 'mcpImport.empty' }] }
  return {
    remote,
    fileOnly,
    yaml: Object.keys(fileOnly).length > 0 ? renderYaml(fileOnly) : '',
    notes,
    errors,
  }
}
