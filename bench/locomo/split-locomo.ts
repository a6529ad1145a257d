/**
 * The two halves LoCoMo figures are reported on: rules are tuned on the tuning half and judged on
 * the held-out half, so a rule fitted to one conversation's words shows up as a gap between them.
 * Whole conversations are split, never questions of one conversation, because questions of the
 * same conversation share its names and words.
 */
export type LocomoSplit = 'tuning' | 'held-out'

/**
 * Conversations in id order alternate: the first, third, fifth… tune, the second, fourth… are
 * held out (LoCoMo's ten give five each).
 */
export function splitLocomo<Conversation extends { id: string }>(
  conversations: readonly Conversation[],
): Record<LocomoSplit, Conversation[]> {
  const ordered = [...conversations].sort(
    (left, right) =>
      Number.parseInt(left.id, 10) - Number.parseInt(right.id, 10) || left.id.localeCompare(right.id),
  )
  return {
    tuning: ordered.filter((_, index) => index % 2 === 0),
    'held-out': ordered.filter((_, index) => index % 2 === 1),
  }
}
