/**
 * Runs one turn of the server's own protocol through a dialect (turn-dialect.ts) into a transport:
 * the WebSocket route and `POST /api/chat` both go through here. The turn's events come pushed as
 * they happen (`relay`: `Charpipe.run`, no promise per event) or pulled (`events`: an async
 * iterable). A turn that throws is logged by the caller (`onFailure`) and its client told with the
 * dialect's failure chunks, in order after what it was sent.
 */
import type { CharpipeEvent } from '../shared/events.js'
import type { TurnDialect, TurnTransport } from './turn-dialect.js'

/** Where a turn's events come from. */
export type TurnSource =
  | { events: AsyncIterable<CharpipeEvent> }
  | { relay(onEvent: (event: CharpipeEvent) => void): Promise<void> }

export interface DriveTurnOptions<Chunk> {
  source: TurnSource
  dialect: TurnDialect<Chunk>
  transport: TurnTransport<Chunk>
  /** Called with what the turn threw, before its client is told. */
  onFailure(error: unknown): void
}

/** Resolves once the turn has ended and what it wrote has gone to the stream; never rejects for the turn. */
export async function driveTurn<Chunk>(options: DriveTurnOptions<Chunk>): Promise<void> {
  const { dialect, transport, source } = options
  const writeAll = (chunks: readonly Chunk[]) => {
    for (const chunk of chunks) transport.write(chunk)
  }
  const pass = (event: CharpipeEvent) => writeAll(dialect.push(event))
  try {
    if ('events' in source) for await (const event of source.events) pass(event)
    else await source.relay(pass)
  } catch (error) {
    options.onFailure(error)
    writeAll(dialect.fail())
  }
  await transport.flushed?.()
}
