/**
 * The words of an input as a preflight is matched on: an early transcript and the final one differ
 * in spacing, punctuation, full/half width and case far more often than in words.
 */
import type { TurnInput } from '../../context/types.js'

const ignored = /[\p{P}\p{Z}\s]/gu

export function normalizePreflightText(text: string): string {
  return text.normalize('NFKC').toLowerCase().replace(ignored, '')
}

/**
 * What must be the same for a final input to adopt a prepared turn: its words (with the speaker and
 * observed lines rendered in), its attachments, its speaker, its person and its character. The
 * emotion may differ (speech recognisers give it with the final transcript only); the final input's
 * is the one stored.
 */
export function preflightKeyOf(input: TurnInput): string {
  return JSON.stringify([
    normalizePreflightText(input.text),
    input.images ?? [],
    input.files ?? [],
    input.replyImages ?? [],
    input.speaker?.id ?? null,
    input.person ?? null,
    input.character ?? null,
  ])
}
