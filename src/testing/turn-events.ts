/**
 * Reading a turn's events in a test: collect them, their types, the sentences, the one `llm_done`
 * (checked to be one and last), or watch a running turn until an event arrives.
 */
import type { CharpipeEvent } from '../shared/events.js'

export async function collectEvents(events: AsyncIterable<CharpipeEvent>): Promise<CharpipeEvent[]> {
  const collected: CharpipeEvent[] = []
  for await (const event of events) collected.push(event)
  return collected
}

export function typesOf(events: readonly CharpipeEvent[]): string[] {
  return events.map((event) => event.type)
}

export function sentencesOf(events: readonly CharpipeEvent[]): string[] {
  return events.flatMap((event) => (event.type === 'llm_sentence' ? [event.text] : []))
}

export function doneOf(events: readonly CharpipeEvent[]) {
  const done = events.filter((event) => event.type === 'llm_done')
  if (done.length !== 1) throw new Error(`expected one llm_done, got ${done.length}`)
  if (events.at(-1)?.type !== 'llm_done') throw new Error('llm_done is not the last event')
  return done[0] as Extract<CharpipeEvent, { type: 'llm_done' }>
}

/** Resolves at the first event of `type` and keeps collecting; `rest` ends with the stream. */
export function watchEvents(events: AsyncIterable<CharpipeEvent>) {
  const collected: CharpipeEvent[] = []
  const waiters: { test: (event: CharpipeEvent) => boolean; resolve: () => void }[] = []
  const finished = (async () => {
    for await (const event of events) {
      collected.push(event)
      for (const waiter of [...waiters]) {
        if (waiter.test(event)) {
          waiters.splice(waiters.indexOf(waiter), 1)
          waiter.resolve()
        }
      }
    }
    return collected
  })()
  return {
    collected,
    finished,
    until(type: CharpipeEvent['type']): Promise<void> {
      if (collected.some((event) => event.type === type)) return Promise.resolve()
      return new Promise((resolve) => waiters.push({ test: (event) => event.type === type, resolve }))
    },
  }
}
