/**
 * What grew between two heap snapshots of one process (the cluster soak's `SNAPSHOT=1` start and
 * end): objects counted by constructor (or type, for strings, arrays and closures) with their own
 * size, the largest growths first, and for each the retainers of its objects in the later snapshot
 * (what holds them: the holder's name and the edge's), counting only objects made since the earlier
 * snapshot (ids are kept across the snapshots of one inspector session). Run:
 * `node --import tsx bench/cluster-soak/compare-heap-snapshots.ts BEFORE AFTER [TOP] [KEY…]` (KEY: a
 * group to explain, e.g. "object Set"; by default the ten that grew most).
 */
import { readFileSync } from 'node:fs'

interface RawSnapshot {
  snapshot: {
    meta: {
      node_fields: string[]
      node_types: [string[], ...unknown[]]
      edge_fields: string[]
      edge_types: [string[], ...unknown[]]
    }
  }
  nodes: number[]
  edges: number[]
  strings: string[]
}

interface Snapshot {
  /** Per node: its group key (`type name`). */
  keys: string[]
  /** Per node: its heap object id (the same object keeps its id across snapshots of one session). */
  ids: number[]
  sizes: number[]
  /** Per node: `holder key . edge name` of each edge pointing at it (a few kept). */
  retainers: Map<number, string[]>
}

function readSnapshot(path: string, retainersOf?: Set<string>): Snapshot {
  const raw = JSON.parse(readFileSync(path, 'utf8')) as RawSnapshot
  const { meta } = raw.snapshot
  const nodeWidth = meta.node_fields.length
  const edgeWidth = meta.edge_fields.length
  const [typeAt, nameAt, idAt, sizeAt, edgeCountAt] = ['type', 'name', 'id', 'self_size', 'edge_count'].map(
    (field) => meta.node_fields.indexOf(field),
  ) as [number, number, number, number, number]
  const [edgeTypeAt, edgeNameAt, toNodeAt] = ['type', 'name_or_index', 'to_node'].map((field) =>
    meta.edge_fields.indexOf(field),
  ) as [number, number, number]
  const nodeTypes = meta.node_types[0]
  const edgeTypes = meta.edge_types[0]
  const count = raw.nodes.length / nodeWidth
  const keys: string[] = new Array(count)
  const sizes: number[] = new Array(count)
  const ids: number[] = new Array(count)
  for (let node = 0; node < count; node++) {
    const base = node * nodeWidth
    const type = nodeTypes[raw.nodes[base + typeAt]!]!
    const name = raw.strings[raw.nodes[base + nameAt]!]!
    // Strings and code are grouped by type: their names are their contents.
    const grouped = ['string', 'concatenated string', 'sliced string', 'code', 'number'].includes(type)
    keys[node] = grouped ? `(${type})` : `${type} ${name.slice(0, 80)}`
    sizes[node] = raw.nodes[base + sizeAt]!
    ids[node] = raw.nodes[base + idAt]!
  }
  const retainers = new Map<number, string[]>()
  if (retainersOf) {
    let edge = 0
    for (let node = 0; node < count; node++) {
      const edgeCount = raw.nodes[node * nodeWidth + edgeCountAt]!
      for (let index = 0; index < edgeCount; index++, edge += edgeWidth) {
        const target = raw.edges[edge + toNodeAt]! / nodeWidth
        if (!retainersOf.has(keys[target]!)) continue
        const edgeType = edgeTypes[raw.edges[edge + edgeTypeAt]!]!
        if (edgeType === 'weak') continue
        const nameOrIndex = raw.edges[edge + edgeNameAt]!
        const edgeName = ['element', 'hidden'].includes(edgeType) ? '' : raw.strings[nameOrIndex]!
        // Numbered slots (an array's, a Map's or a Set's table) are grouped as one.
        const shown = /^\d*$/.test(edgeName) ? '[]' : edgeName
        const list = retainers.get(target) ?? []
        if (list.length < 3) list.push(`${keys[node]} .${shown}`)
        retainers.set(target, list)
      }
    }
  }
  return { keys, ids, sizes, retainers }
}

function countByKey(snapshot: Snapshot): Map<string, { count: number; size: number }> {
  const groups = new Map<string, { count: number; size: number }>()
  snapshot.keys.forEach((key, node) => {
    const group = groups.get(key) ?? { count: 0, size: 0 }
    group.count++
    group.size += snapshot.sizes[node]!
    groups.set(key, group)
  })
  return groups
}

const [beforePath, afterPath, topText, ...chosenKeys] = process.argv.slice(2)
if (!beforePath || !afterPath) throw new Error('usage: compare-heap-snapshots BEFORE AFTER [TOP]')
const top = Number(topText ?? 25)
const beforeSnapshot = readSnapshot(beforePath)
const before = countByKey(beforeSnapshot)
const beforeIds = new Set(beforeSnapshot.ids)
const afterGroups = countByKey(readSnapshot(afterPath))
const growth = [...afterGroups]
  .map(([key, after]) => {
    const earlier = before.get(key) ?? { count: 0, size: 0 }
    return { key, count: after.count - earlier.count, bytes: after.size - earlier.size }
  })
  .sort((left, right) => right.bytes - left.bytes)
  .slice(0, top)
console.table(growth)

const explained = chosenKeys.length ? chosenKeys : growth.slice(0, 10).map((row) => row.key)
const after = readSnapshot(afterPath, new Set(explained))
const retainedBy = new Map<string, Map<string, number>>()
for (const [node, holders] of after.retainers) {
  // Only what was made between the snapshots and is still there.
  if (beforeIds.has(after.ids[node]!)) continue
  const byHolder = retainedBy.get(after.keys[node]!) ?? new Map<string, number>()
  for (const holder of holders) byHolder.set(holder, (byHolder.get(holder) ?? 0) + 1)
  retainedBy.set(after.keys[node]!, byHolder)
}
for (const key of explained) {
  const holders = [...(retainedBy.get(key) ?? [])].sort((left, right) => right[1] - left[1]).slice(0, 6)
  console.log(`\n${key}, made since the first snapshot, is held by:`)
  for (const [holder, count] of holders) console.log(`  ${count}\t${holder}`)
}
