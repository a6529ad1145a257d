/**
 * A streamed OpenAI-compatible answer waits for the turn's first text (or its end) before it
 * commits to a 200 stream: a turn that fails before it says anything answers with a non-2xx error,
 * which clients handle as a failed request (and retry when they may).
 */
import type { CharpipeEvent, LlmErrorEvent } from '../../shared/events.js'
import { isTurnFailure } from './send-openai-error.js'

export interface HoldUntilFirstTextResult {
  /** The events read so far, to be sent first. */
  held: CharpipeEvent[]
  /** The failure that ended the turn before any text; the turn's iterator is closed then. */
  failure?: LlmErrorEvent
}

function isText(event: CharpipeEvent): boolean {
  return event.type === 'llm_chunk' && event.text !== ''
}

export async function holdUntilFirstText(
  events: AsyncIterator<CharpipeEvent>,
): Promise<HoldUntilFirstTextResult> {
  const held: CharpipeEvent[] = []
  for (;;) {
    const next = await events.next()
    if (next.done) break
    held.push(next.value)
    if (isText(next.value) || next.value.type === 'llm_done') break
  }
  const failure = held.find(
    (event): event is LlmErrorEvent => event.type === 'llm_error' && isTurnFailure(event),
  )
  if (failure && !held.some(isText)) {
    await events.return?.(undefined)
    return { held, failure }
  }
  return { held }
}
