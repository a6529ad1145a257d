import { describe, expect, it } from 'vitest'
import type { CharpipeEvent } from '../shared/events.js'
import { driveTurn, type TurnSource } from './drive-turn.js'
import type { TurnDialect, TurnTransport } from './turn-dialect.js'

const base = { session: 's', turn: 't' }
const turnOf = (...texts: string[]): CharpipeEvent[] => [
  ...texts.map((text): CharpipeEvent => ({ ...base, type: 'llm_chunk', text })),
  { ...base, type: 'llm_done', text: texts.join(''), emotion: 'happy', interrupted: false },
]

/** A dialect that writes each event's type (and a chunk's text), and `failed` for a failed turn. */
const namingDialect: TurnDialect<string> = {
  push: (event) => [event.type === 'llm_chunk' ? `chunk:${event.text}` : event.type],
  fail: () => ['failed'],
}

function createRecordingTransport(log: string[]): TurnTransport<string> {
  return {
    write: (chunk) => void log.push(chunk),
    flushed: async () => void log.push('flushed'),
  }
}

async function* iterate(events: readonly CharpipeEvent[], failAfter?: number) {
  for (const [index, event] of events.entries()) {
    if (index === failAfter) throw new Error('the model went away')
    yield event
  }
}

/** The same turn pushed (as `Charpipe.run` hands it on) and pulled (as `generate` yields it). */
const sources: [string, (events: CharpipeEvent[], failAfter?: number) => TurnSource][] = [
  [
    'pushed',
    (events, failAfter) => ({
      relay: async (onEvent) => {
        for (const [index, event] of events.entries()) {
          if (index === failAfter) throw new Error('the model went away')
          onEvent(event)
        }
      },
    }),
  ],
  ['pulled', (events, failAfter) => ({ events: iterate(events, failAfter) })],
]

describe.each(sources)('driveTurn, events %s', (_name, sourceOf) => {
  it('writes each event through the dialect, in order, then waits for the transport', async () => {
    const log: string[] = []
    const failures: unknown[] = []
    await driveTurn({
      source: sourceOf(turnOf('Hi', '!')),
      dialect: namingDialect,
      transport: createRecordingTransport(log),
      onFailure: (error) => failures.push(error),
    })
    expect(log).toEqual(['chunk:Hi', 'chunk:!', 'llm_done', 'flushed'])
    expect(failures).toEqual([])
  })

  it('a turn that throws: reported, then its failure written after what was sent', async () => {
    const log: string[] = []
    const failures: unknown[] = []
    await driveTurn({
      source: sourceOf(turnOf('Hi', '!'), 1),
      dialect: namingDialect,
      transport: createRecordingTransport(log),
      onFailure: (error) => failures.push((error as Error).message),
    })
    expect(failures).toEqual(['the model went away'])
    expect(log).toEqual(['chunk:Hi', 'failed', 'flushed'])
  })
})
