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
import { maxIndexedCharacters } from './segment-text.js'

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

  it('ranks a long memory that says the word above a short one whose neighbour says it often', async () => {
    const turns = [
      '用户: 上周末在朋友家聚会，大家聊了很久的工作和旅行，最后我还吃了一小块蛋糕才回家',
      '用户: 蛋糕蛋糕蛋糕，我做的蛋糕最好吃，蛋糕',
      '用户: 猫叫咪咪',
    ]
    for (const text of turns) await store.add({ scope: 'party', text, speaker: '用户' })
    const hits = await store.search('蛋糕', { scope: 'party', k: 3 })
    expect(hits.map((hit) => hit.text)).toEqual(
      turns
        .slice(0, 2)
        .reverse()
        .concat(turns[2] as string),
    )
  })

  it('leaves out the memories of the turns named in excludeSourceTurns, still filling k', async () => {
    for (const [index, text] of [
      '用户: 周末去爬山吗',
      '用户: 上次爬山看到了日出',
      '用户: 爬山要带水',
    ].entries()) {
      await store.add({ scope: 'hike', text, speaker: '用户', sourceTurn: `t${index}` })
    }
    const all = await store.search('爬山', { scope: 'hike', k: 2 })
    expect(all).toHaveLength(2)
    const hits = await store.search('爬山', {
      scope: 'hike',
      k: 2,
      excludeSourceTurns: [all[0]!.sourceTurn!],
    })
    expect(hits).toHaveLength(2)
    expect(hits.map((hit) => hit.sourceTurn)).not.toContain(all[0]!.sourceTurn)
    await expect(
      store.search('爬山', { scope: 'hike', k: 2, excludeSourceTurns: [1] as unknown as string[] }),
    ).rejects.toThrow(/excludeSourceTurns/)
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

describe('scores across languages', () => {
  it('ranks and scores the clear match of a short Chinese query as it does the English one', async () => {
    const languageFolder = mkdtempSync(join(tmpdir(), 'memory-languages-'))
    const languageStore = createSqliteMemoryStore({
      path: join(languageFolder, 'charpipe.db'),
      now: () => Date.UTC(2025, 0, 10),
    })
    try {
      const chinese = [
        '我喜欢吃巧克力蛋糕',
        '用户养了一只猫叫咪咪',
        '火锅店在三里屯',
        '我的生日是五月三日',
        '周末去爬山吗',
      ]
      const english = [
        'I love chocolate cake',
        'I have a cat named Mimi',
        'The hotpot place is in Sanlitun',
        'My birthday is May 3rd',
        'Shall we go hiking this weekend?',
      ]
      let time = Date.UTC(2025, 0, 1)
      for (const [index, text] of chinese.entries()) {
        await languageStore.add({ scope: 'zh', text: `用户: ${text}`, speaker: '用户', time })
        await languageStore.add({ scope: 'en', text: `User: ${english[index]}`, speaker: 'User', time })
        time += 60_000
      }
      const [zh] = await languageStore.search('我们去吃火锅吧', { scope: 'zh', k: 3 })
      const en = (await languageStore.search("Let's go eat hotpot", { scope: 'en', k: 3 })).find(
        (hit) => hit.text === 'User: The hotpot place is in Sanlitun',
      )
      // 去 and 吃 beside 火锅 count as little as grammar does: the hotpot memory comes first, and its
      // score is where the English memory's is for the English question.
      expect(zh?.text).toBe('用户: 火锅店在三里屯')
      expect(zh!.score).toBeGreaterThanOrEqual(en!.score * 0.8)
      expect(zh!.score).toBeLessThanOrEqual(en!.score * 2)
    } finally {
      await languageStore.close()
      rmSync(languageFolder, { recursive: true, force: true })
    }
  })
})

describe('query expansion from the best matches', () => {
  it('finds a memory that shares no word with the question through the words of the best match', async () => {
    const expansionFolder = mkdtempSync(join(tmpdir(), 'memory-expansion-'))
    const expansionStore = createSqliteMemoryStore({ path: join(expansionFolder, 'charpipe.db') })
    try {
      // Apart, so neither is indexed with the other's words as context.
      await expansionStore.add({ scope: 'm', text: 'The lighthouse keeper ending made everyone cry' })
      const filler = ['weather', 'traffic', 'lunch', 'meeting', 'garden', 'football', 'music', 'coffee']
      for (let index = 0; index < 100; index++) {
        const topic = filler[index % filler.length] as string
        await expansionStore.add({ scope: 'm', text: `We talked about ${topic} number ${index} today` })
      }
      await expansionStore.add({ scope: 'm', text: 'Melanie read the novel Lighthouse Keeper on holiday' })
      const hits = await expansionStore.search('What did Melanie read?', { scope: 'm', k: 5 })
      expect(hits[0]?.text).toBe('Melanie read the novel Lighthouse Keeper on holiday')
      expect(hits.map((hit) => hit.text)).toContain('The lighthouse keeper ending made everyone cry')
      const plain = createSqliteMemoryStore({
        path: join(expansionFolder, 'charpipe.db'),
        ranking: { feedbackDocuments: 0 },
      })
      const without = await plain.search('What did Melanie read?', { scope: 'm', k: 5 })
      await plain.close()
      expect(without.map((hit) => hit.text)).not.toContain('The lighthouse keeper ending made everyone cry')
    } finally {
      await expansionStore.close()
      rmSync(expansionFolder, { recursive: true, force: true })
    }
  })
})

describe('irregular word forms', () => {
  it('finds the memory that tells in the past what the question asks in the bare form', async () => {
    const formsFolder = mkdtempSync(join(tmpdir(), 'memory-forms-'))
    const path = join(formsFolder, 'charpipe.db')
    const formsStore = createSqliteMemoryStore({ path })
    try {
      for (const text of ['I bought new running shoes', 'The park was closed for repairs', 'Lunch was pasta'])
        await formsStore.add({ scope: 'f', text })
      const hits = await formsStore.search('What did I buy?', { scope: 'f', k: 3 })
      expect(hits[0]?.text).toBe('I bought new running shoes')
      // Without other word forms the question has no word any memory says.
      const plain = createSqliteMemoryStore({ path, ranking: { variantWeight: 0 } })
      expect(await plain.search('What did I buy?', { scope: 'f', k: 3 })).toEqual([])
      await plain.close()
    } finally {
      await formsStore.close()
      rmSync(formsFolder, { recursive: true, force: true })
    }
  })
})

describe('dates and questions that ask when', () => {
  let datedFolder: string
  const day = 86_400_000
  const memories = [
    { text: 'Baked bread again, the bread came out great', time: Date.UTC(2023, 2, 12) },
    { text: 'I baked banana bread for the neighbours', time: Date.UTC(2023, 4, 20) },
    { text: 'The beach is lovely, we love the beach with the kids', time: Date.UTC(2023, 5, 2) },
    { text: 'I went to the beach yesterday', time: Date.UTC(2023, 5, 9) },
  ]

  async function searchWith(ranking: { undatedShare?: number; untimedShare?: number }, query: string) {
    const store = createSqliteMemoryStore({
      path: join(datedFolder, 'charpipe.db'),
      now: () => Date.UTC(2023, 6, 1),
      ranking,
    })
    try {
      return (await store.search(query, { scope: 'd', k: 2 })).map((hit) => hit.text)
    } finally {
      await store.close()
    }
  }

  beforeAll(async () => {
    datedFolder = mkdtempSync(join(tmpdir(), 'memory-dates-'))
    const store = createSqliteMemoryStore({ path: join(datedFolder, 'charpipe.db') })
    // Apart from each other, so no memory is indexed with another's words as context.
    for (const [index, memory] of memories.entries()) {
      await store.add({ scope: 'd', ...memory })
      await store.add({ scope: 'd', text: `filler note ${index}`, time: memory.time + day })
    }
    await store.close()
  })

  afterAll(() => rmSync(datedFolder, { recursive: true, force: true }))

  it('puts first the memory said in the period the question names', async () => {
    const query = 'What bread did I bake in May 2023?'
    expect((await searchWith({}, query))[0]).toBe('I baked banana bread for the neighbours')
    expect((await searchWith({}, '2023年5月烤了什么 bread'))[0]).toBe(
      'I baked banana bread for the neighbours',
    )
    // Dates ignored: the memory that says "bread" twice wins.
    expect((await searchWith({ undatedShare: 1 }, query))[0]).toBe(
      'Baked bread again, the bread came out great',
    )
  })

  it('reads a date only in the part of the question whose words are searched', async () => {
    // Past `maxIndexedCharacters` a text is neither segmented nor read for dates: a megabyte of
    // input costs what its opening costs.
    const padding = ' '.repeat(maxIndexedCharacters)
    expect((await searchWith({}, `What bread did I bake in May 2023?${padding}`))[0]).toBe(
      'I baked banana bread for the neighbours',
    )
    expect((await searchWith({}, `What bread did I bake${padding} in May 2023?`))[0]).toBe(
      'Baked bread again, the bread came out great',
    )
  })

  it('puts first, for a question that asks when, the memory that tells a time', async () => {
    // No verb: "go" would also find "went" (an irregular form), whatever the question asks.
    const query = 'When was I at the beach?'
    expect((await searchWith({}, query))[0]).toBe('I went to the beach yesterday')
    expect((await searchWith({ untimedShare: 1 }, query))[0]).toBe(
      'The beach is lovely, we love the beach with the kids',
    )
    // Not a when-question: the words decide.
    expect((await searchWith({}, 'Tell me about the beach'))[0]).toBe(
      'The beach is lovely, we love the beach with the kids',
    )
  })
})
