/**
 * Names that have one spelling across src/: the log key of an error is `err` (pino's own name for
 * it, which log tools know), and OpenAI is written `OpenAI` in identifiers (`convertToOpenAIMessages`,
 * `OpenAICompletionBody`), never `OpenAi`. A place that strays fails here, named by file and line.
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

function readSources(): { path: string; text: string }[] {
  return readdirSync(source, { recursive: true, encoding: 'utf8' })
    .filter((path) => /\.tsx?$/.test(path))
    .map((path) => ({ path: `src/${path}`, text: readFileSync(join(source, path), 'utf8') }))
}

describe('the spelling of OpenAI in identifiers', () => {
  it('is OpenAI everywhere in src/', () => {
    const found = readSources().flatMap(({ path, text }) =>
      text
        .split('\n')
        .flatMap((line, index) => (/OpenAi|openAi[A-Z]/.test(line) ? [`${path}:${index + 1}`] : [])),
    )
    expect(found).toEqual([])
  })
})

describe('the log key of an error', () => {
  it('finds a log call that uses `error` (the check works)', () => {
    expect(
      findLogCallsWithErrorKey("logger.warn({ err: error }, 'a')\nlogger.warn(\n  { where, error },\n 'b')"),
    ).toEqual([2])
    expect(findLogCallsWithErrorKey("logger.error({ error: error.message }, 'a')")).toEqual([1])
  })

  it('is `err` in every log call of src/', () => {
    const found = readSources()
      .filter(({ path }) => !/\.test\.tsx?$/.test(path))
      .flatMap(({ path, text }) => findLogCallsWithErrorKey(text).map((line) => `${path}:${line}`))
    expect(found).toEqual([])
  })
})
