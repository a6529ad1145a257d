/**
 * The lorebook processor's scan and the card import/export, at sizes real cards reach and past them.
 * Scan: 500 entries of 3 plain keys each (English words, Chinese words) plus 20 `/regex/` keys, over
 * the newest messages (scan_depth 10) of 1,000 to 100,000 characters in all, against the naive scan
 * (one `includes` per key) as the reference. Cards: import and export of a V3 PNG card whose avatar
 * is 256 KB, 2 MB and 8 MB. Goal: every row's worst case under 50 ms (the event-loop bound).
 * Run: node --import tsx bench/lorebook.bench.ts
 */
import { randomBytes } from 'node:crypto'
import encodeChunks from 'png-chunks-encode'
import extractChunks from 'png-chunks-extract'
import { exportCharacterCard, importCharacterCard } from '../src/characters/cards/index.js'
import { characterSchema, lorebookSchema } from '../src/config/schema.js'
import { selectLorebookEntries } from '../src/context/lorebook/select-lorebook-entries.js'
import { estimateTokens } from '../src/shared/estimate-tokens.js'

function measure(runs: number, work: () => void): { median: number; worst: number } {
  const times: number[] = []
  for (let run = 0; run < runs; run++) {
    const start = performance.now()
    work()
    times.push(performance.now() - start)
  }
  times.sort((a, b) => a - b)
  return { median: times[Math.floor(times.length / 2)]!, worst: times.at(-1)! }
}

const words = Array.from({ length: 1500 }, (_, index) => `word${index.toString(36)}x`)
const hanzi = '龙城堡月光森林王国骑士魔法宝石河流山脉精灵古堡星辰海洋沙漠'
const chinese = Array.from(
  { length: 500 },
  (_, index) => `${hanzi[index % 30]}${hanzi[(index * 7) % 30]}${index}`,
)
const lorebook = lorebookSchema.parse({
  scan_depth: 10,
  token_budget: 2048,
  entries: Array.from({ length: 500 }, (_, index) => ({
    keys: [
      words[index * 3]!,
      words[index * 3 + 1]!,
      chinese[index]!,
      ...(index < 20 ? [`/rx${index}(ab)+c/i`] : []),
    ],
    content: `Entry ${index}: ${'lore '.repeat(20)}`,
  })),
})

function conversation(chars: number): string {
  const filler = 'the quick brown fox jumps over the lazy dog 山间的小路弯弯曲曲 '
  let text = ''
  for (let index = 0; text.length < chars; index++)
    text += filler + (index % 50 === 0 ? `${words[index % 1500]} ` : '')
  return text.slice(0, chars)
}

function naiveScan(text: string): number {
  const lower = text.toLowerCase()
  let found = 0
  for (const entry of lorebook.entries)
    if (entry.keys.some((key) => !key.startsWith('/') && lower.includes(key.toLowerCase()))) found++
  return found
}

console.log('| scan of 500 entries | text chars | median ms | worst ms | naive includes median ms |')
console.log('|---|---:|---:|---:|---:|')
for (const chars of [1_000, 10_000, 100_000]) {
  const text = conversation(chars)
  const options = { lorebook, text, countTokens: estimateTokens, maxRecursion: 3 }
  selectLorebookEntries(options) // compiles once, as the first turn after a config load does
  const scan = measure(200, () => selectLorebookEntries(options))
  const naive = measure(50, () => naiveScan(text))
  console.log(
    `| lorebook | ${chars.toLocaleString('en')} | ${scan.median.toFixed(3)} | ${scan.worst.toFixed(3)} | ${naive.median.toFixed(3)} |`,
  )
}
const compile = measure(20, () =>
  selectLorebookEntries({
    lorebook: structuredClone(lorebook),
    text: '',
    countTokens: estimateTokens,
    maxRecursion: 0,
  }),
)
console.log(
  `| compile (first turn after a load) | | ${compile.median.toFixed(3)} | ${compile.worst.toFixed(3)} | |`,
)

function pictureOf(bytes: number): Uint8Array {
  const chunks = extractChunks(exportCharacterCard(characterSchema.parse({ name: 'x' }), { format: 'png' }))
  // Random bytes in an ancillary chunk stand for a large picture: the card code reads every chunk.
  const filler = { name: 'prVt', data: new Uint8Array(randomBytes(bytes)) }
  return encodeChunks([chunks[0]!, filler, ...chunks.slice(1).filter((chunk) => chunk.name !== 'tEXt')])
}

console.log('\n| card | picture | median ms | worst ms |')
console.log('|---|---:|---:|---:|')
for (const size of [256 * 1024, 2 * 1024 * 1024, 8 * 1024 * 1024]) {
  const character = characterSchema.parse({
    name: 'Seraphina',
    persona: 'A guardian.',
    avatar: `data:image/png;base64,${Buffer.from(pictureOf(size)).toString('base64')}`,
    lorebook: { entries: lorebook.entries.slice(0, 100) },
  })
  const png = exportCharacterCard(character, { format: 'png' })
  const label = `${(size / 1024 / 1024).toFixed(2)} MB`
  const exported = measure(10, () => exportCharacterCard(character, { format: 'png' }))
  const imported = measure(10, () => importCharacterCard(png, 'image/png'))
  console.log(`| export PNG | ${label} | ${exported.median.toFixed(1)} | ${exported.worst.toFixed(1)} |`)
  console.log(`| import PNG | ${label} | ${imported.median.toFixed(1)} | ${imported.worst.toFixed(1)} |`)
}
