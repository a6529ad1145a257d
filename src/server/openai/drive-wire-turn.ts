/**
 * Runs a `/v1` turn through a wire format (wire-format.ts): streamed, into the bounded SSE writer
 * (bound-stream-writes.ts); not streamed, to its ending alone. Store first, then tell: the answer
 * is kept (`settle`) before the chunks that say it is done go out, and a failure to keep it is what
 * they say instead. What the client has been sent is counted as it goes to the stream, so a client
 * that leaves has its reply stored, and its response kept, with exactly the text it was sent.
 */
import type { CharpipeEvent } from '../../shared/events.js'
import type { BoundedStreamWrites } from '../bound-stream-writes.js'
import type { TurnFailure } from './send-openai-error.js'
import type { TurnEnding, TurnTally, WireChunk, WireFormat } from './wire-format.js'

export interface SentText {
  /** The callback of a chunk given to the writer: it has gone to the stream. */
  track(chunk: WireChunk): () => void
  /** The display text sent so far, the chunk going to the stream now included. */
  readText(): string
  /** The chunks sent so far, the one going to the stream now included. */
  countChunks(): number
}

/**
 * What the client has been sent. The writer sends one chunk at a time, in order: the oldest chunk
 * not yet acknowledged is the one the stream is taking now, and a client that leaves meanwhile
 * has been handed it.
 */
export function createSentText(): SentText {
  const waiting: string[] = []
  let head = 0
  let text = ''
  return {
    track(chunk) {
      waiting.push(chunk.text ?? '')
      return () => {
        text += waiting[head] ?? ''
        head++
      }
    },
    readText: () => text + (waiting[head] ?? ''),
    countChunks: () => Math.min(waiting.length, head + 1),
  }
}

export interface DriveWireTurnOptions {
  events: AsyncIterator<CharpipeEvent>
  /** Events already read from `events`, sent first. */
  held?: readonly CharpipeEvent[]
  format: WireFormat
  tally: TurnTally
  writer: BoundedStreamWrites
  sent: SentText
  /** Whether the client has left (the stream was aborted). */
  isClosed(): boolean
  /** Keeps the answer before its end is sent; a failure to keep it ends the answer instead. */
  settle?(ending: TurnEnding): Promise<TurnFailure | undefined>
}

/** Streams a turn to its end; resolves with its ending once everything has gone to the stream. */
export async function driveWireTurn(options: DriveWireTurnOptions): Promise<TurnEnding> {
  const { format, tally, writer, sent } = options
  const write = async (chunks: readonly WireChunk[]) => {
    for (const chunk of chunks) {
      // After the client left the turn still runs to its end (stored as interrupted); nothing is sent.
      if (options.isClosed()) return
      const message =
        chunk.event === undefined ? { data: chunk.data } : { event: chunk.event, data: chunk.data }
      await writer.writeSSE(message, sent.track(chunk))
    }
  }
  const pass = async (event: CharpipeEvent) => {
    tally.observe(event)
    await write(format.push(event))
  }
  await write(format.start())
  for (const event of options.held ?? []) await pass(event)
  for (let next = await options.events.next(); !next.done; next = await options.events.next())
    await pass(next.value)
  let ending = tally.ending()
  if (options.isClosed()) ending = { ...ending, writtenChunks: sent.countChunks() }
  await write(format.close(ending))
  const unsettled = await options.settle?.(ending)
  if (unsettled) ending = { ...ending, failure: unsettled }
  await write(format.end(ending))
  await writer.flushed()
  return ending
}

export interface CollectWireTurnOptions {
  events: AsyncIterator<CharpipeEvent>
  format: Pick<WireFormat, 'push' | 'close'>
  tally: TurnTally
}

/** Runs a turn that is not streamed through its format; its ending once the format is closed. */
export async function collectWireTurn(options: CollectWireTurnOptions): Promise<TurnEnding> {
  const { format, tally } = options
  for (let next = await options.events.next(); !next.done; next = await options.events.next()) {
    tally.observe(next.value)
    format.push(next.value)
  }
  const ending = tally.ending()
  format.close(ending)
  return ending
}
