/**
 * An Aho–Corasick automaton over UTF-16 code units: every pattern added is looked for in a text in
 * one pass, however many there are. A pattern has a kind (a small number) and an index; a search
 * asks for some kinds and gets the lowest index among the patterns of those kinds the text holds.
 *
 * Laid out for long lists (`blocked_words` takes up to 10,000 words of 200 characters): a node is
 * four 32-bit numbers, its first child held inline and further children in a Map only where the trie
 * branches, and a node shares the lowest indexes of the patterns ending at it with its fallback when
 * none of its own ends there. A Map per node took 440 MB and 25 s for the largest list.
 */

export interface WordAutomaton {
  /** The lowest index of a pattern of a kind in `kindMask` (bit `1 << kind`) in `text`; `Infinity`: none. */
  findFirst(text: string, kindMask: number): number
}

export interface WordAutomatonBuilder {
  /** Adds a pattern; an empty one is never found. */
  add(pattern: string, kind: number, index: number): void
  /** The automaton of the patterns added so far. */
  build(): WordAutomaton
  /**
   * The same, built in steps: each `next()` links a bounded number of nodes, so a caller can spread
   * a long list's build over turns of the event loop; the last step returns the automaton.
   */
  buildInSteps(): Generator<void, WordAutomaton>
}

export interface CreateWordAutomatonBuilderOptions {
  /** Kinds of pattern, numbered from 0. */
  kinds: number
  /**
   * Nodes to make room for at once (at most the patterns' total length): a trie that grows by
   * doubling copies its arrays, and touching tens of megabytes at once holds the loop that long.
   */
  capacity?: number
}

interface Trie {
  size: number
  /**
   * Per node: the code unit to its first child plus one, 0 for none (fresh memory is zero: nothing
   * to fill, pages touched only as nodes are added); node 0 is the root.
   */
  firstUnit: Int32Array
  firstChild: Int32Array
  /** The children after the first, of the nodes that branch. */
  otherChildren: Map<number, Map<number, number>>
  /** Per node: where its lowest index per kind starts in `lowest`; 0: no pattern ends there. */
  endsAt: Int32Array
  /** Runs of one lowest index per kind; the first run, all `Infinity`, is no pattern. */
  lowest: number[]
}

export function createWordAutomatonBuilder(options: CreateWordAutomatonBuilderOptions): WordAutomatonBuilder {
  const { kinds } = options
  const room = Math.max(64, (options.capacity ?? 0) + 1)
  const trie: Trie = {
    size: 1,
    firstUnit: new Int32Array(room),
    firstChild: new Int32Array(room),
    otherChildren: new Map(),
    endsAt: new Int32Array(room),
    lowest: new Array<number>(kinds).fill(Number.POSITIVE_INFINITY),
  }
  return {
    add(pattern, kind, index) {
      if (pattern === '') return
      let node = 0
      for (let position = 0; position < pattern.length; position++) {
        const unit = pattern.charCodeAt(position)
        const child = childOf(trie, node, unit)
        node = child >= 0 ? child : addChild(trie, node, unit)
      }
      if (trie.endsAt[node] === 0) {
        trie.endsAt[node] = trie.lowest.length
        for (let each = 0; each < kinds; each++) trie.lowest.push(Number.POSITIVE_INFINITY)
      }
      const slot = trie.endsAt[node]! + kind
      trie.lowest[slot] = Math.min(trie.lowest[slot]!, index)
    },
    build: () => runToEnd(buildAutomaton(trie, kinds)),
    buildInSteps: () => buildAutomaton(trie, kinds),
  }
}

/** Nodes linked between two steps of a build: well under a millisecond. */
const nodesPerStep = 256

function runToEnd<Result>(steps: Generator<void, Result>): Result {
  for (;;) {
    const step = steps.next()
    if (step.done) return step.value
  }
}

function childOf(trie: Trie, node: number, unit: number): number {
  if (trie.firstUnit[node] === unit + 1) return trie.firstChild[node]!
  return trie.otherChildren.get(node)?.get(unit) ?? -1
}

function addChild(trie: Trie, node: number, unit: number): number {
  const child = trie.size++
  if (trie.size > trie.firstUnit.length) growTrie(trie)
  if (trie.firstUnit[node] === 0) {
    trie.firstUnit[node] = unit + 1
    trie.firstChild[node] = child
    return child
  }
  let others = trie.otherChildren.get(node)
  if (!others) {
    others = new Map()
    trie.otherChildren.set(node, others)
  }
  others.set(unit, child)
  return child
}

function growTrie(trie: Trie): void {
  const grown = (array: Int32Array) => {
    const larger = new Int32Array(array.length * 2)
    larger.set(array)
    return larger
  }
  trie.firstUnit = grown(trie.firstUnit)
  trie.firstChild = grown(trie.firstChild)
  trie.endsAt = grown(trie.endsAt)
}

function forEachChild(trie: Trie, node: number, visit: (unit: number, child: number) => void): void {
  if (trie.firstUnit[node] === 0) return
  visit(trie.firstUnit[node]! - 1, trie.firstChild[node]!)
  for (const [unit, child] of trie.otherChildren.get(node) ?? []) visit(unit, child)
}

/** Links each node to its longest proper suffix in the trie, breadth first (shorter suffixes first). */
function* buildAutomaton(trie: Trie, kinds: number): Generator<void, WordAutomaton> {
  const fallback = new Int32Array(trie.size)
  const queue = new Int32Array(trie.size)
  let tail = 0
  forEachChild(trie, 0, (_unit, child) => {
    queue[tail++] = child
  })
  for (let head = 0; head < tail; head++) {
    if (head % nodesPerStep === nodesPerStep - 1) yield
    const node = queue[head]!
    // A pattern ending at the node's fallback (a suffix of it) ends at the node too.
    mergeEnds(trie, node, fallback[node]!, kinds)
    forEachChild(trie, node, (unit, child) => {
      fallback[child] = fallbackOf(trie, fallback, fallback[node]!, unit)
      queue[tail++] = child
    })
  }
  return { findFirst: (text, kindMask) => findFirst(trie, fallback, kinds, text, kindMask) }
}

/** The node reached by `unit` from `node`'s longest suffix that has such a child; the root if none. */
function fallbackOf(trie: Trie, fallback: Int32Array, start: number, unit: number): number {
  for (let candidate = start; ; candidate = fallback[candidate]!) {
    const child = childOf(trie, candidate, unit)
    if (child >= 0) return child
    if (candidate === 0) return 0
  }
}

function mergeEnds(trie: Trie, node: number, suffix: number, kinds: number): void {
  const { endsAt, lowest } = trie
  const inherited = endsAt[suffix]!
  if (inherited === 0) return
  const own = endsAt[node]!
  // No pattern of its own ends here: the suffix's lowest indexes are the node's (read only from now).
  if (own === 0) {
    endsAt[node] = inherited
    return
  }
  for (let kind = 0; kind < kinds; kind++)
    lowest[own + kind] = Math.min(lowest[own + kind]!, lowest[inherited + kind]!)
}

function findFirst(trie: Trie, fallback: Int32Array, kinds: number, text: string, kindMask: number): number {
  const { endsAt, lowest } = trie
  let first = Number.POSITIVE_INFINITY
  let node = 0
  for (let position = 0; position < text.length; position++) {
    const unit = text.charCodeAt(position)
    let child = childOf(trie, node, unit)
    while (child < 0 && node !== 0) {
      node = fallback[node]!
      child = childOf(trie, node, unit)
    }
    node = child < 0 ? 0 : child
    const ends = endsAt[node]!
    if (ends === 0) continue
    for (let kind = 0; kind < kinds; kind++) {
      if (kindMask & (1 << kind)) first = Math.min(first, lowest[ends + kind]!)
    }
  }
  return first
}
