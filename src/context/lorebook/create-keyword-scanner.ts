/**
 * Finds which of many keywords occur in a text in one pass (Aho–Corasick): the cost is the text's
 * length plus the keywords' total length, however many keywords a lorebook has, so hundreds of
 * entries over long messages stay cheap. Keywords are matched as written (callers lowercase both
 * sides for case-insensitive keys); substrings count, which is what keys in scripts without spaces
 * between words (Chinese, Japanese) need.
 */
export interface KeywordScanner {
  /** Calls `found` once for each keyword id that occurs in `text`. */
  scan(text: string, found: (id: number) => void): void
}

interface Node {
  next: Map<number, number>
  fail: number
  /** Keyword ids ending here. */
  ids: number[]
  /** Nearest node on the fail chain that ends a keyword (-1: none). */
  output: number
}

function createNode(): Node {
  return { next: new Map(), fail: 0, ids: [], output: -1 }
}

function buildTrie(keywords: readonly string[]): Node[] {
  const nodes = [createNode()]
  keywords.forEach((keyword, id) => {
    if (!keyword) return
    let at = 0
    for (let index = 0; index < keyword.length; index++) {
      const code = keyword.charCodeAt(index)
      let next = nodes[at]!.next.get(code)
      if (next === undefined) {
        next = nodes.length
        nodes.push(createNode())
        nodes[at]!.next.set(code, next)
      }
      at = next
    }
    nodes[at]!.ids.push(id)
  })
  return nodes
}

function linkFailures(nodes: Node[]): void {
  const queue: number[] = []
  for (const child of nodes[0]!.next.values()) queue.push(child)
  for (let head = 0; head < queue.length; head++) {
    const node = nodes[queue[head]!]!
    for (const [code, child] of node.next) {
      let fail = node.fail
      while (fail !== 0 && !nodes[fail]!.next.has(code)) fail = nodes[fail]!.fail
      const target = nodes[fail]!.next.get(code)
      const childNode = nodes[child]!
      childNode.fail = target !== undefined && target !== child ? target : 0
      const failNode = nodes[childNode.fail]!
      childNode.output = failNode.ids.length > 0 ? childNode.fail : failNode.output
      queue.push(child)
    }
  }
}

export function createKeywordScanner(keywords: readonly string[]): KeywordScanner {
  const nodes = buildTrie(keywords)
  linkFailures(nodes)
  return {
    scan(text, found) {
      if (nodes.length === 1) return
      // A node once reported has had its whole output chain reported: stopping there keeps a text
      // like "aaaa…" against keys a, aa, aaa… linear.
      const reported = new Uint8Array(nodes.length)
      let at = 0
      for (let index = 0; index < text.length; index++) {
        const code = text.charCodeAt(index)
        let next = nodes[at]!.next.get(code)
        while (next === undefined && at !== 0) {
          at = nodes[at]!.fail
          next = nodes[at]!.next.get(code)
        }
        at = next ?? 0
        for (let node = nodes[at]!.ids.length > 0 ? at : nodes[at]!.output; node > 0 && !reported[node]; ) {
          reported[node] = 1
          for (const id of nodes[node]!.ids) found(id)
          node = nodes[node]!.output
        }
      }
    },
  }
}
