/**
 * A model may send a huge text in one event (a gateway that buffers, a replayed answer: 200,000
 * characters at once). Everything after the provider (reply parser, sentences, frames to every
 * client) works per delta, so one such delta would keep the event loop for as long as the whole
 * text takes (80–160 ms for 200,000 characters of prose), and every other session would wait that
 * long. Such a delta is handed on in slices instead, with a turn of the event loop between two
 * slices. Deltas of normal size (a few characters) pass untouched, at the cost of one comparison.
 */
import { nextPoll } from '../shared/next-turn-of-event-loop.js'
import type { ProviderEvent } from './types.js'

/** Longest text handed on in one delta: a few milliseconds of the reply stages' work at most. */
export const maxDeltaChars = 4096

type TextEvent = Extract<ProviderEvent, { type: 'text-delta' | 'reasoning-delta' }>

/** Whether `event` is a text or reasoning delta longer than `limit` characters. */
export function isLargeDelta(event: ProviderEvent, limit = maxDeltaChars): event is TextEvent {
  return (event.type === 'text-delta' || event.type === 'reasoning-delta') && event.text.length > limit
}

/** `text` cut into pieces of at most `limit` UTF-16 units, never between the halves of a surrogate pair. */
export function sliceText(text: string, limit = maxDeltaChars): string[] {
  if (!Number.isInteger(limit) || limit < 2)
    throw new RangeError(`limit must be an integer of at least 2, got ${limit}`)
  const slices: string[] = []
  let start = 0
  while (start < text.length) {
    let end = Math.min(text.length, start + limit)
    const last = text.charCodeAt(end - 1)
    // A high surrogate at the cut: its low half would start the next slice, so keep both together.
    if (end < text.length && last >= 0xd800 && last <= 0xdbff) end--
    slices.push(text.slice(start, end))
    start = end
  }
  return slices
}

/**
 * The delta as slices of at most `limit` characters, each after the event loop's next poll (other
 * sessions' frames and timers run in between). The consumer may stop between two slices.
 */
export async function* yieldInSlices(event: TextEvent, limit = maxDeltaChars): AsyncGenerator<TextEvent> {
  const slices = sliceText(event.text, limit)
  for (let index = 0; index < slices.length; index++) {
    if (index > 0) await nextPoll()
    yield { type: event.type, text: slices[index]! }
  }
}
