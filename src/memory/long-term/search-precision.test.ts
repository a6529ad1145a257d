/**
 * Precision of memory search as a user sees it: which memory comes first for a query, which
 * queries find nothing, and what the scores look like. Memories are stored in conversation order,
 * so each one is indexed with its neighbours' words as context.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { MemoryStore } from '../types.js'
import { createSqliteMemoryStore } from './create-sqlite-memory-store.js'

const conversation = [
  '用户: 我喜欢吃巧克力蛋糕',
  '用户: 用户养了一只猫叫咪咪',
  '用户: 周末我们去吃火锅吧',
  '用户: 我的生日是五月三日',
  '用户: 周末去爬山吗',
  '用户: 最近在学弹吉他',
  'User: I adopted a dog named Biscuit last spring',
  'User: My sister works as a nurse in Boston',
]

/** Query → the memory expected first, or null when nothing should come back. */
const table: [query: string, first: string | null][] = [
  ['蛋糕', '用户: 我喜欢吃巧克力蛋糕'],
  ['我们去吃火锅吧', '用户: 周末我们去吃火锅吧'],
  ['咪咪', '用户: 用户养了一只猫叫咪咪'],
  ['生日', '用户: 我的生日是五月三日'],
  ['爬山', '用户: 周末去爬山吗'],
  ['吉他', '用户: 最近在学弹吉他'],
  ['What is the name of my dog?', 'User: I adopted a dog named Biscuit last spring'],
  ['Where does my sister work?', 'User: My sister works as a nurse in Boston'],
  ['量子物理', null],
  ['quantum physics lecture', null],
]

let folder: string
let store: MemoryStore

beforeAll(async () => {
  folder = mkdtempSync(join(tmpdir(), 'memory-precision-'))
  store = createSqliteMemoryStore({
    path: join(folder, 'charpipe.db'),
    now: () => Date.UTC(2025, 0, 10),
    ranking: { minScore: 0.01 },
  })
  let time = Date.UTC(2025, 0, 1)
  for (const text of conversation) {
    await store.add({ scope: 'user', text, speaker: '用户', time })
    time += 60_000
  }
})

afterAll(async () => {
  await store.close()
  rmSync(folder, { recursive: true, force: true })
})

describe('memory search precision', () => {
  it.each(table)('%s → %s', async (query, first) => {
    const hits = await store.search(query, { scope: 'user', k: 5 })
    if (first === null) {
      expect(hits).toEqual([])
      return
    }
    expect(hits[0]?.text).toBe(first)
  })

  it('never ranks a memory found only through its neighbours above one that says the words', async () => {
    for (const query of ['蛋糕', '我们去吃火锅吧']) {
      const hits = await store.search(query, { scope: 'user', k: 5 })
      const cat = hits.findIndex((hit) => hit.text.includes('咪咪'))
      expect(cat === -1 || cat > 0).toBe(true)
      expect(hits[0]?.text).not.toContain('咪咪')
    }
  })

  it('scores in [0, 1], best first, on one scale across queries', async () => {
    for (const [query] of table) {
      const hits = await store.search(query, { scope: 'user', k: 5 })
      for (const hit of hits) {
        expect(hit.score).toBeGreaterThan(0)
        expect(hit.score).toBeLessThanOrEqual(1)
      }
      const scores = hits.map((hit) => hit.score)
      expect(scores).toEqual([...scores].sort((left, right) => right - left))
    }
    // A one-word query found word for word in one short memory scores well above the noise.
    const [exact] = await store.search('吉他', { scope: 'user', k: 1 })
    expect(exact?.score).toBeGreaterThan(0.05)
  })
})
