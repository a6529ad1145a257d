/**
 * The query words that name a speaker: a word found in the speaker column of some candidate
 * ("Caroline" in "What did Caroline research?"). Only the candidates are looked at, not the whole
 * index, so the check costs a few lookups per candidate; a name nobody among them spoke is not a
 * speaker this search can favour anyway.
 */
import type { MemoryTermIndex } from './memory-term-index.js'

export interface SpeakerCandidate {
  partition?: MemoryTermIndex
  slot: number
}

export function findNamedSpeakers(
  terms: readonly string[],
  candidates: Iterable<SpeakerCandidate>,
): string[] {
  const list = [...candidates]
  const seen = new Set<MemoryTermIndex>()
  for (const candidate of list) if (candidate.partition?.kind === 'memory') seen.add(candidate.partition)
  const partitions = [...seen]
  // Most words are in no speaker's name at all: only the others are looked for among the candidates.
  const open = new Set(terms.filter((term) => partitions.some((each) => each.hasSpeakerPostings(term))))
  const named = new Set<string>()
  for (const candidate of list) {
    if (open.size === 0) break
    const partition = candidate.partition
    if (partition?.kind !== 'memory') continue
    for (const term of open) {
      if (!partition.hasInSpeaker(term, candidate.slot)) continue
      named.add(term)
      open.delete(term)
    }
  }
  return [...named]
}
