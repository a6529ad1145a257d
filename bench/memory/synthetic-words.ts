/**
 * Made-up vocabularies for the memory benches: words of syllables (no real language's statistics,
 * no stopwords) and two-character Chinese words, each list the same on every run.
 */

/** Deterministic pseudo-random numbers (mulberry32), so runs of a bench compare. */
export function createSeededRandom(seed: number): () => number {
  let state = seed
  return () => {
    state = (state + 0x6d2b79f5) | 0
    let value = Math.imul(state ^ (state >>> 15), 1 | state)
    value = (value + Math.imul(value ^ (value >>> 7), 61 | value)) ^ value
    return ((value ^ (value >>> 14)) >>> 0) / 4294967296
  }
}

const syllables = [
  'ka',
  'lo',
  'mi',
  'ren',
  'ta',
  'so',
  'vi',
  'an',
  'der',
  'pu',
  'el',
  'ri',
  'mon',
  'sa',
  'to',
  'ne',
]

/** `count` distinct words of syllables: the index written in base 16 with a syllable per digit. */
export function makeSyllableWords(count: number): string[] {
  return Array.from({ length: count }, (_, index) => {
    let word = ''
    for (let value = index + 17; value > 0; value = Math.floor(value / syllables.length))
      word += syllables[value % syllables.length]
    return word
  })
}

const hanzi = [
  ...'天气朋友火锅北京电影音乐猫狗工作周末旅行学校妈妈生日礼物咖啡跑步画画游戏医院考试公司老师手机',
]

/** `count` two-character Chinese words from 44 common characters (they repeat past 44 × 44). */
export function makeChineseWords(count: number): string[] {
  return Array.from(
    { length: count },
    (_, index) => `${hanzi[index % hanzi.length]}${hanzi[(index * 7 + 3) % hanzi.length]}`,
  )
}
