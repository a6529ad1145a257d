/**
 * A library whose program chose no logger still reports its warnings and errors: one process
 * warning each (`CharpipeWarning`, a line on stderr unless the program handles them), so an event
 * listener that throws is never silent, and never breaks the turn. A logger given to
 * `createCharpipe` gets the line instead. Tests are otherwise silent, so each test here leaves the
 * test runner's environment (`VITEST`) for the library's own, and puts it back.
 */
import { Writable } from 'node:stream'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { createCharpipe } from '../../src/engine/index.js'
import { createInMemoryHistoryStore } from '../../src/memory/index.js'
import { createLogger } from '../../src/shared/logger.js'
import { createScriptedProvider } from '../../src/testing/create-scripted-provider.js'
import { makeConfig } from '../../src/testing/create-turn-harness.js'
import { collectEvents, doneOf } from '../../src/testing/turn-events.js'

let warnings: { message: string; type: string | undefined }[]
beforeEach(() => {
  vi.stubEnv('VITEST', undefined)
  vi.stubEnv('CHARPIPE_LOG_LEVEL', undefined)
  warnings = []
  vi.spyOn(process, 'emitWarning').mockImplementation((warning, options) => {
    const type = typeof options === 'string' ? options : options?.type
    warnings.push({ message: String(warning), type })
  })
})
afterEach(() => {
  vi.unstubAllEnvs()
  vi.restoreAllMocks()
})

async function runWithThrowingListener(options: { logger?: ReturnType<typeof createLogger> } = {}) {
  const charpipe = await createCharpipe(makeConfig(), {
    provider: createScriptedProvider([{ chunks: ['Hello there.'] }]),
    historyStore: createInMemoryHistoryStore(),
    ...options,
  })
  charpipe.on('llm_sentence', () => {
    throw new Error('the listener has a bug')
  })
  try {
    return await collectEvents(charpipe.generate({ session: 's', text: 'Hi' }))
  } finally {
    await charpipe.close()
  }
}

describe('a library given no logger', () => {
  it('reports an event listener that throws as one process warning, and the turn goes on', async () => {
    const events = await runWithThrowingListener()
    expect(doneOf(events)).toMatchObject({ text: 'Hello there.', interrupted: false })
    const reported = warnings.filter((warning) => warning.message.includes('the listener has a bug'))
    expect(reported).toHaveLength(1)
    expect(reported[0]!.type).toBe('CharpipeWarning')
    expect(reported[0]!.message).toMatch(/ERROR .*an event listener threw/)
    expect(reported[0]!.message).not.toContain('\n')
  })

  it('CHARPIPE_LOG_LEVEL=silent silences it', async () => {
    vi.stubEnv('CHARPIPE_LOG_LEVEL', 'silent')
    const events = await runWithThrowingListener()
    expect(doneOf(events).text).toBe('Hello there.')
    expect(warnings).toEqual([])
  })
})

describe('a library given a logger', () => {
  it('writes the error there, not as a process warning', async () => {
    const lines: string[] = []
    const destination = new Writable({
      write(chunk, _encoding, done) {
        lines.push(String(chunk))
        done()
      },
    })
    const logger = createLogger({ level: 'warn', destination, format: 'json' })
    await runWithThrowingListener({ logger })
    expect(lines.join('')).toContain('the listener has a bug')
    expect(warnings.filter((warning) => warning.message.includes('the listener has a bug'))).toEqual([])
  })
})
