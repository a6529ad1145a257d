/**
 * The one driver: runs a turn through a dialect (turn-dialect.ts) into a transport, for every door
 * of the server: the WebSocket, `POST /api/chat`, `/v1/chat/completions` and `/v1/responses`. The
 * turn's events come pushed as they happen (`relay`: `Charpipe.run`, no promise per event) or
 * pulled (`events`: an async iterable, each write awaited when the transport answers with a
 * promise, so a slow reader slows the pull). A turn that throws is logged by the caller
 * (`onFailure`) and ends like any other: the dialect's finish, asked once, is the last thing
 * written; an async finish (the `/v1` store) is awaited before its chunks go out.
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

/** Resolves once the turn has finished and what it wrote has gone to the stream; never rejects for the turn. */
export async function driveTurn<Chunk>(options: DriveTurnOptions<Chunk>): Promise<void> {
  const { dialect, transport, source } = options
  let finished = false
  const writeNow = (chunks: readonly Chunk[]) => {
    for (const chunk of chunks) void transport.write(chunk)
  }
  const writeInOrder = async (chunks: readonly Chunk[]) => {
    for (const chunk of chunks) {
      const written = transport.write(chunk)
      if (written) await written
    }
  }
  let threw = false
  try {
    if ('events' in source) {
      await writeInOrder(dialect.start?.() ?? [])
      for await (const event of source.events) await writeInOrder(dialect.push(event))
    } else {
      writeNow(dialect.start?.() ?? [])
      // A relay that hands on an event after its turn ended is not heard: nothing follows the finish.
      await source.relay((event) => {
        if (!finished) writeNow(dialect.push(event))
      })
    }
  } catch (error) {
    threw = true
    options.onFailure(error)
  }
  finished = true
  await writeInOrder(await dialect.finish({ threw }))
  await transport.flushed?.()
}
