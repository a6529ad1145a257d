/**
 * Each field of `EngineState` has one writer, the module engine-context.ts names beside it. A new
 * assignment elsewhere fails here: give the change to the owner, or move the field and its note.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { describe, expect, it } from 'vitest'

const src = join(import.meta.dirname, '..')

const writers: Record<string, string[]> = {
  current: ['engine/engine-lifecycle.ts'],
  reloading: ['engine/engine-lifecycle.ts'],
  closed: ['engine/engine-lifecycle.ts'],
  mcp: ['engine/engine-lifecycle.ts'],
  audience: ['engine/create-audience-methods.ts'],
}

function productFiles(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name)
    if (entry.isDirectory()) return productFiles(path)
    return /\.tsx?$/.test(entry.name) && !/\.test\.tsx?$/.test(entry.name) ? [path] : []
  })
}

/** Assignments to `….state.<field>` (and `+=`-like ones), not comparisons. */
function assignedFields(text: string): string[] {
  return [...text.matchAll(/\bstate\.(\w+)\s*(?:[-+*/?|&]{0,3})=(?!=)/g)].map((match) => match[1]!)
}

/** Each field of the `EngineState` interface with the writer its comment names. */
function writersNamedIn(text: string): Record<string, string[]> {
  const body = text.slice(text.indexOf('export interface EngineState {'))
  const named: Record<string, string[]> = {}
  for (const [, comment, field] of body.matchAll(/\/\*\*((?:(?!\*\/)[\s\S])*)\*\/\s*(\w+):/g)) {
    const writer = /Writer: ([\w.-]+\.ts)/.exec(comment!.replace(/\s*\*\s*/g, ' '))?.[1]
    named[field!] = writer ? [`engine/${writer}`] : []
  }
  return named
}

describe('EngineState', () => {
  it('has one writer per field, the one engine-context.ts names', () => {
    const found: Record<string, string[]> = {}
    for (const file of productFiles(join(src, 'engine'))) {
      for (const field of assignedFields(readFileSync(file, 'utf8'))) {
        const writer = relative(src, file).split('\\').join('/')
        found[field] = [...new Set([...(found[field] ?? []), writer])]
      }
    }
    // Only the engine's state: a turn's `state` (turn/run-turn.ts) is the runner's own.
    const engineFields = Object.fromEntries(Object.entries(found).filter(([field]) => field in writers))
    expect(engineFields).toEqual(writers)
    expect(writersNamedIn(readFileSync(join(src, 'engine/engine-context.ts'), 'utf8'))).toEqual(writers)
  })
})
