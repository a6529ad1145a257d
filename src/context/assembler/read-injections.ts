/**
 * The injection settings of the assembler: depth injections `{content, role, depth}` (counted from
 * the end of the history: 0 = after the newest history message) and anchors `{position, role,
 * content}` before/after the persona and the history.
 */
import type { ProcessorSettings } from '../../config/schema.js'
import type { ProcessorSettingsIssue } from '../types.js'

export type InjectionRole = 'system' | 'user' | 'assistant'
export type AnchorPosition = 'before_persona' | 'after_persona' | 'before_history' | 'after_history'

export interface DepthInjection {
  content: string
  role: InjectionRole
  depth: number
}

export interface AnchorInjection {
  position: AnchorPosition
  role: InjectionRole
  content: string
}

const roles: readonly InjectionRole[] = ['system', 'user', 'assistant']
const positions: readonly AnchorPosition[] = [
  'before_persona',
  'after_persona',
  'before_history',
  'after_history',
]

function checkEntry(entry: unknown, path: string, kind: 'depth' | 'anchor'): ProcessorSettingsIssue[] {
  if (typeof entry !== 'object' || entry === null) return [{ path, message: 'must be an object' }]
  const { content, role, depth, position } = entry as Record<string, unknown>
  const issues: ProcessorSettingsIssue[] = []
  if (typeof content !== 'string') issues.push({ path: `${path}.content`, message: 'must be a string' })
  if (role !== undefined && !roles.includes(role as InjectionRole))
    issues.push({ path: `${path}.role`, message: `must be one of ${roles.join(', ')}` })
  if (kind === 'depth' && !(Number.isInteger(depth) && (depth as number) >= 0))
    issues.push({
      path: `${path}.depth`,
      message: 'must be a whole number ≥ 0 (0 = after the newest history message)',
    })
  if (kind === 'anchor' && !positions.includes(position as AnchorPosition))
    issues.push({ path: `${path}.position`, message: `must be one of ${positions.join(', ')}` })
  return issues
}

export function checkInjections(settings: ProcessorSettings): ProcessorSettingsIssue[] {
  const issues: ProcessorSettingsIssue[] = []
  for (const [key, kind] of [
    ['depth_injections', 'depth'],
    ['anchors', 'anchor'],
  ] as const) {
    const value = settings[key]
    if (value === undefined) continue
    if (!Array.isArray(value)) {
      issues.push({ path: key, message: 'must be a list' })
      continue
    }
    value.forEach((entry, index) => {
      issues.push(...checkEntry(entry, `${key}.${index}`, kind))
    })
  }
  return issues
}

export function readDepthInjections(settings: ProcessorSettings): DepthInjection[] {
  const value = settings.depth_injections
  if (!Array.isArray(value)) return []
  return value
    .filter((entry, index) => checkEntry(entry, String(index), 'depth').length === 0)
    .map((entry) => ({ content: entry.content, role: entry.role ?? 'system', depth: entry.depth }))
}

export function readAnchors(settings: ProcessorSettings): AnchorInjection[] {
  const value = settings.anchors
  if (!Array.isArray(value)) return []
  return value
    .filter((entry, index) => checkEntry(entry, String(index), 'anchor').length === 0)
    .map((entry) => ({ content: entry.content, role: entry.role ?? 'system', position: entry.position }))
}
