/**
 * Schema problems as `{path, message}` a person can act on: one issue per unknown field, and a
 * "did you mean" with the nearest known field (`modle` → `model`) or allowed value (`jsonn` → `json`).
 */
import type { z } from 'zod'
import type { ConfigIssue } from '../shared/errors.js'
import { suggestClosestName } from './find-closest-name.js'
import { findSchemaField } from './find-schema-field.js'

function formatIssuePath(path: readonly PropertyKey[]): string {
  return path.map((key) => String(key)).join('.')
}

function readAt(value: unknown, path: readonly PropertyKey[]): unknown {
  let current = value
  for (const key of path) {
    if (current === null || typeof current !== 'object') return undefined
    current = (current as Record<PropertyKey, unknown>)[key]
  }
  return current
}

function knownFieldsAt(path: readonly PropertyKey[]): string[] {
  const node = findSchemaField(path.map(String))
  return node?.def.type === 'object' ? Object.keys(node.def.shape as object) : []
}

/** Converts zod's issues; `input` (what was validated) lets enum mistakes get a suggestion. */
export function convertZodIssues(issues: readonly z.core.$ZodIssue[], input?: unknown): ConfigIssue[] {
  return issues.flatMap((issue): ConfigIssue[] => {
    const path = formatIssuePath(issue.path)
    if (issue.code === 'unrecognized_keys') {
      const base = path ? `${path}.` : ''
      const known = knownFieldsAt(issue.path)
      return issue.keys.map((key) => ({
        path: `${base}${key}`,
        message: `unknown field${suggestClosestName(key, known)}`,
      }))
    }
    if (issue.code === 'invalid_value') {
      const given = readAt(input, issue.path)
      const allowed = issue.values.filter((value): value is string => typeof value === 'string')
      if (typeof given === 'string' && allowed.length > 0) {
        const list = allowed.join(', ')
        return [{ path, message: `"${given}" is not one of ${list}${suggestClosestName(given, allowed)}` }]
      }
    }
    return [{ path, message: issue.message }]
  })
}
