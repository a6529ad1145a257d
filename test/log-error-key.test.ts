/**
 * One key for an error in a log record: `err` (pino's own name for it, which log tools know). A log
 * call in src/ that puts an error under `error` fails here, naming the file and line.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'

const source = join(import.meta.dirname, '..', 'src')
const logCall = /\.(?:trace|debug|info|warn|error|fatal)\(\s*\{([^{}]*)\}/g
const errorKey = /(?:^|,)\s*error\s*(?:,|:|$)/

function findLogCallsWithErrorKey(text: string): number[] {
  const lines: number[] = []
  for (const match of text.matchAll(logCall)) {
    if (errorKey.test(match[1] ?? '')) lines.push(text.slice(0, match.index).split('\n').length)
  }
  return lines
}

describe('the log key of an error', () => {
  it('finds a log call that uses `error` (the check works)', () => {
    expect(
      findLogCallsWithErrorKey("logger.warn({ err: error }, 'a')\nlogger.warn(\n  { where, error },\n 'b')"),
    ).toEqual([2])
    expect(findLogCallsWithErrorKey("logger.error({ error: error.message }, 'a')")).toEqual([1])
  })

  it('is `err` in every log call of src/', () => {
    const files = readdirSync(source, { recursive: true, encoding: 'utf8' }).filter(
      (path) => /\.tsx?$/.test(path) && !/\.test\.tsx?$/.test(path),
    )
    const found = files.flatMap((path) =>
      findLogCallsWithErrorKey(readFileSync(join(source, path), 'utf8')).map((line) => `src/${path}:${line}`),
    )
    expect(found).toEqual([])
  })
})
