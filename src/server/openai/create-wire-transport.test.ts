import { describe, expect, it } from 'vitest'
import type { CharpipeEvent } from '../../shared/events.js'
import type { BoundedStreamWrites, StreamMessage } from '../bound-stream-writes.js'
import { driveTurn } from '../drive-turn.js'
import { createSentText, createWireTransport } from './create-wire-transport.js'
import {
  createTurnTally,
  createWireDialect,
  resumeEvents,
  type TurnEnding,
  type WireChunk,
  type WireFormat,
} from './wire-format.js'

const base = { session: 's', turn: 't' }
const turnOf = (...texts: string[]): CharpipeEvent[] => [
  ...texts.map((text): CharpipeEvent => ({ ...base, type: 'llm_chunk', text })),
  { ...base, type: 'llm_done', text: texts.join(''), emotion: 'happy', interrupted: false },
]

async function* iterate(events: readonly CharpipeEvent[], onEach?: (index: number) => void) {
  for (const [index, event] of events.entries()) {
    onEach?.(index)
    yield event
  }
}

/** A format that writes each text as a chunk and names its ending. */
const echoFormat: WireFormat = {
  start: () => [{ data: 'start' }],
  push: (event) => (event.type === 'llm_chunk' ? [{ data: event.text, text: event.text }] : []),
  close: (ending: TurnEnding) => [{ data: `close:${ending.writtenChunks ?? 'all'}` }],
  end: (ending: TurnEnding) => [{ data: ending.failure ? `failed:${ending.failure.code}` : 'completed' }],
}

/** A writer that records what it was given, in order, acknowledging each at once. */
function createRecordingWriter(log: string[]): BoundedStreamWrites {
  return {
    bufferedBytes: 0,
    async writeSSE(message: StreamMessage, onWritten?: () => void) {
      log.push(message.data)
      onWritten?.()
    },
    flushed: async () => void log.push('flushed'),
  }
}

interface RunOptions {
  events: AsyncIterator<CharpipeEvent>
  log: string[]
  isClosed?: () => boolean
  settle?: (ending: TurnEnding) => Promise<{ code: string; message: string } | undefined>
}

/** A `/v1` stream as the routes run it: the one driver, a wire dialect, the wire transport. */
async function runWireTurn(options: RunOptions) {
  const transport = createWireTransport({
    writer: createRecordingWriter(options.log),
    sent: createSentText(),
    isClosed: options.isClosed ?? (() => false),
  })
  const failures: unknown[] = []
  await driveTurn({
    source: { events: resumeEvents([], options.events) },
    dialect: createWireDialect({
      format: echoFormat,
      tally: createTurnTally(undefined),
      countChunksIfLeft: transport.countChunksIfLeft,
      ...(options.settle ? { settle: options.settle } : {}),
      fail: () => [{ data: 'threw' }],
    }),
    transport,
    onFailure: (error) => failures.push(error),
  })
  return { failures }
}

describe('a /v1 stream through the driver', () => {
  it('keeps the answer before the chunks that say it is done, and says the failure to keep it instead', async () => {
    for (const [stored, last] of [
      [true, 'completed'],
      [false, 'failed:store_unavailable'],
    ] as const) {
      const log: string[] = []
      await runWireTurn({
        events: iterate(turnOf('Hi', '!')),
        log,
        settle: async () => {
          log.push('settled')
          return stored ? undefined : { code: 'store_unavailable', message: 'disk full' }
        },
      })
      expect(log).toEqual(['start', 'Hi', '!', 'settled', 'close:all', last, 'flushed'])
    }
  })

  it('writes nothing once the client left, and tells the format how many chunks it was sent', async () => {
    const log: string[] = []
    let closed = false
    const endings: TurnEnding[] = []
    await runWireTurn({
      // The client leaves as the third event is read.
      events: iterate(turnOf('a', 'b', 'c'), (index) => {
        if (index === 2) closed = true
      }),
      log,
      isClosed: () => closed,
      settle: async (ending) => {
        endings.push(ending)
        return undefined
      },
    })
    expect(log).toEqual(['start', 'a', 'b', 'flushed'])
    expect(endings.map((ending) => ending.writtenChunks)).toEqual([3])
  })

  it('sends the held events first, then the rest of the turn', async () => {
    const log: string[] = []
    const [first, ...rest] = turnOf('held', 'then')
    const events = resumeEvents([first!], iterate(rest))
    await runWireTurn({ events: events[Symbol.asyncIterator](), log })
    expect(log).toEqual(['start', 'held', 'then', 'close:all', 'completed', 'flushed'])
  })

  it('a turn that throws ends with the failure chunks, nothing kept', async () => {
    const log: string[] = []
    let settled = false
    async function* failing() {
      yield* turnOf('Hi').slice(0, 1)
      throw new Error('the model went away')
    }
    const { failures } = await runWireTurn({
      events: failing(),
      log,
      settle: async () => {
        settled = true
        return undefined
      },
    })
    expect(log).toEqual(['start', 'Hi', 'threw', 'flushed'])
    expect(settled).toBe(false)
    expect(failures).toHaveLength(1)
  })
})

describe('createSentText', () => {
  it('counts the chunk going to the stream as sent, and the ones still waiting not', () => {
    const sent = createSentText()
    const chunks: WireChunk[] = [
      { data: '1', text: 'One. ' },
      { data: '2', text: 'Tw' },
      { data: '3', text: 'o.' },
    ]
    const acknowledge = chunks.map((chunk) => sent.track(chunk))
    // The first is being written: a client that leaves now was handed it.
    expect(sent.readText()).toBe('One. ')
    expect(sent.countChunks()).toBe(1)
    acknowledge[0]!()
    expect(sent.readText()).toBe('One. Tw')
    acknowledge[1]!()
    acknowledge[2]!()
    expect(sent.readText()).toBe('One. Two.')
    expect(sent.countChunks()).toBe(3)
  })
})
