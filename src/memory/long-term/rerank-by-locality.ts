/**
 * A cheap local re-ranker from where memories sit in the conversation. People talk about one
 * thing for a stretch: a turn close to the best matches, in the same sitting, is more likely
 * about what was asked than a turn that matches as well on its own, alone in another conversation.
 *
 * Two rules, over the candidates the words found (no memory is added, so a memory that says none
 * of the query's words is never brought in by its neighbours):
 * - a candidate that matches on its own words within `nearSlots` of one of the `seedCount` best
 *   direct matches rises to at least `nearShare` of that match ("Where did you get Luna?" finds the
 *   question; the answer two turns on, which names the shelter, rises with it);
 * - every candidate keeps `1 - supportWeight` of its relevance, plus `supportWeight` times the
 *   share of the best relevance that the best other candidate within `supportSlots` reaches;
 * - then every candidate keeps `1 - sittingWeight` of its relevance, plus `sittingWeight` times
 *   how much its whole sitting matched (the sum of its candidates' relevance) against the sitting
 *   that matched most: a question is usually about what one conversation was about, and a sitting
 *   where many turns match is more likely that conversation than one with a single match.
 * Relevance stays in [0, 1] and never passes that of the match that lifts it.
 *
 * Neighbours are slots of one partition (a scope's memories, in the order they were added) said
 * at most `sittingGapMs` apart; knowledge chunks are not re-ranked.
 */
import type { MemoryTermIndex } from './memory-term-index.js'

export interface LocalityCandidate {
  relevance: number
  /** Matched on its own words or speaker, not only through its neighbours' words. */
  direct: boolean
  partition?: MemoryTermIndex
  slot: number
}

export interface RerankByLocalityOptions {
  nearShare: number
  nearSlots: number
  seedCount: number
  supportWeight: number
  supportSlots: number
  sittingWeight: number
  sittingGapMs: number
}

export const defaultLocality: RerankByLocalityOptions = {
  nearShare: 0.5,
  nearSlots: 2,
  seedCount: 5,
  supportWeight: 0.3,
  supportSlots: 10,
  sittingWeight: 0.2,
  sittingGapMs: 60 * 60 * 1000,
}

export function rerankByLocality(
  candidates: Iterable<LocalityCandidate>,
  options: RerankByLocalityOptions = defaultLocality,
): void {
  const byPartition = new Map<MemoryTermIndex, LocalityCandidate[]>()
  for (const candidate of candidates) {
    const partition = candidate.partition
    if (partition?.kind !== 'memory') continue
    const list = byPartition.get(partition) ?? []
    list.push(candidate)
    byPartition.set(partition, list)
  }
  for (const [partition, list] of byPartition) {
    list.sort((left, right) => left.slot - right.slot)
    liftNearSeeds(partition, list, options)
    weighBySupport(partition, list, options)
    weighBySitting(partition, list, options)
  }
}

function isSameSitting(partition: MemoryTermIndex, left: number, right: number, gap: number): boolean {
  return Math.abs((partition.times[left] as number) - (partition.times[right] as number)) <= gap
}

/**
 * Calls `visit` with each candidate (sorted by slot) within `span` slots of `index`'s, in one
 * sitting. A plain loop, not a generator: it runs for every candidate of every search.
 */
function forEachNeighbour(
  partition: MemoryTermIndex,
  list: LocalityCandidate[],
  index: number,
  span: number,
  gap: number,
  visit: (neighbour: LocalityCandidate) => void,
): void {
  const slot = (list[index] as LocalityCandidate).slot
  for (let other = index - 1; other >= 0; other--) {
    const neighbour = list[other] as LocalityCandidate
    if (slot - neighbour.slot > span) break
    if (isSameSitting(partition, neighbour.slot, slot, gap)) visit(neighbour)
  }
  for (let other = index + 1; other < list.length; other++) {
    const neighbour = list[other] as LocalityCandidate
    if (neighbour.slot - slot > span) break
    if (isSameSitting(partition, neighbour.slot, slot, gap)) visit(neighbour)
  }
}

function liftNearSeeds(
  partition: MemoryTermIndex,
  list: LocalityCandidate[],
  options: RerankByLocalityOptions,
): void {
  if (options.nearShare <= 0 || options.seedCount <= 0) return
  const seeds = list
    .map((candidate, index) => ({ candidate, index }))
    .filter(({ candidate }) => candidate.direct)
    .sort((left, right) => right.candidate.relevance - left.candidate.relevance)
    .slice(0, options.seedCount)
  const lifted = new Map<LocalityCandidate, number>()
  for (const { candidate: seed, index } of seeds) {
    const floor = seed.relevance * options.nearShare
    forEachNeighbour(partition, list, index, options.nearSlots, options.sittingGapMs, (neighbour) => {
      if (neighbour.direct && floor > Math.max(neighbour.relevance, lifted.get(neighbour) ?? 0))
        lifted.set(neighbour, floor)
    })
  }
  // Applied after all seeds were read, so a lifted candidate does not lift others in turn.
  for (const [candidate, relevance] of lifted) candidate.relevance = relevance
}

function weighBySupport(
  partition: MemoryTermIndex,
  list: LocalityCandidate[],
  options: RerankByLocalityOptions,
): void {
  if (options.supportWeight <= 0) return
  let top = 0
  for (const candidate of list) top = Math.max(top, candidate.relevance)
  if (top <= 0) return
  const support = list.map(
    (_, index) => findBestNeighbour(partition, list, index, options.supportSlots, options.sittingGapMs) / top,
  )
  list.forEach((candidate, index) => {
    candidate.relevance *= 1 - options.supportWeight + options.supportWeight * (support[index] as number)
  })
}

/**
 * The highest relevance among the neighbours `forEachNeighbour` would visit: the same walk without a
 * callback, as it runs for every candidate of every search.
 */
function findBestNeighbour(
  partition: MemoryTermIndex,
  list: LocalityCandidate[],
  index: number,
  span: number,
  gap: number,
): number {
  const times = partition.times
  const slot = (list[index] as LocalityCandidate).slot
  const time = times[slot] as number
  let best = 0
  for (let other = index - 1; other >= 0; other--) {
    const neighbour = list[other] as LocalityCandidate
    if (slot - neighbour.slot > span) break
    if (Math.abs((times[neighbour.slot] as number) - time) <= gap) best = Math.max(best, neighbour.relevance)
  }
  for (let other = index + 1; other < list.length; other++) {
    const neighbour = list[other] as LocalityCandidate
    if (neighbour.slot - slot > span) break
    if (Math.abs((times[neighbour.slot] as number) - time) <= gap) best = Math.max(best, neighbour.relevance)
  }
  return best
}

/**
 * Candidates (sorted by slot) in sittings: a candidate starts a new sitting when it was said more
 * than `sittingGapMs` after the candidate before it.
 */
function numberSittings(partition: MemoryTermIndex, list: LocalityCandidate[], gap: number): number[] {
  let sitting = 0
  return list.map((candidate, index) => {
    const previous = list[index - 1]
    if (previous && !isSameSitting(partition, previous.slot, candidate.slot, gap)) sitting++
    return sitting
  })
}

function weighBySitting(
  partition: MemoryTermIndex,
  list: LocalityCandidate[],
  options: RerankByLocalityOptions,
): void {
  if (options.sittingWeight <= 0) return
  const sittings = numberSittings(partition, list, options.sittingGapMs)
  const sums: number[] = []
  list.forEach((candidate, index) => {
    const sitting = sittings[index] as number
    sums[sitting] = (sums[sitting] ?? 0) + candidate.relevance
  })
  const top = Math.max(0, ...sums)
  if (top <= 0) return
  list.forEach((candidate, index) => {
    const share = (sums[sittings[index] as number] as number) / top
    candidate.relevance *= 1 - options.sittingWeight + options.sittingWeight * share
  })
}
