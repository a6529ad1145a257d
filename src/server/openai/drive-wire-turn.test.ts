import { describe, expect, it } from 'vitest'
import type { CharpipeEvent } from '../../shared/events.js'
import type { BoundedStreamWrites, StreamMessage } from '../bound-stream-writes.js'
import { createSentText, driveWireTurn } from './drive-wire-turn.js'
import { createTurnTally, type TurnEnding, type WireChunk, type WireFormat } from './wire-format.js'

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
  close: () => [{ data: 'close' }],
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
    flushed: async () => {},
  }
}

describe('driveWireTurn', () => {
  it('keeps the answer before the chunks that say it is done, and says the failure to keep it instead', async () => {
    for (const [stored, last] of [
      [true, 'completed'],
      [false, 'failed:store_unavailable'],
    ] as const) {
      const log: string[] = []
      await driveWireTurn({
        events: iterate(turnOf('Hi', '!')),
        format: echoFormat,
        tally: createTurnTally(undefined),
        writer: createRecordingWriter(log),
        sent: createSentText(),
        isClosed: () => false,
        settle: async () => {
          log.push('settled')
          return stored ? undefined : { code: 'store_unavailable', message: 'disk full' }
        },
      })
      expect(log).toEqual(['start', 'Hi', '!', 'close', 'settled', last])
    }
  })

  it('writes nothing once the client left, and tells the format how many chunks it was sent', async () => {
    const log: string[] = []
    let closed = false
    const ending = await driveWireTurn({
      // The client leaves as the third event is read.
      events: iterate(turnOf('a', 'b', 'c'), (index) => {
        if (index === 2) closed = true
      }),
      format: echoFormat,
      tally: createTurnTally(undefined),
      writer: createRecordingWriter(log),
      sent: createSentText(),
      isClosed: () => closed,
    })
    expect(log).toEqual(['start', 'a', 'b'])
    expect(ending.writtenChunks).toBe(3)
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
