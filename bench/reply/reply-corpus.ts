/**
 * A long, mixed Chinese/English model reply for the reply parser benchmark, and a split into
 * chunks of realistic delta sizes (1–8 characters). Deterministic: the same seed gives the same text.
 */

const pieces = [
  '你好呀～今天天气真好，我们去公园散步吧！',
  '他说：“你来吗？我等你。”我说好。',
  '嗯……让我想想。其实，这个问题没有那么简单；我们可以分三步来做。',
  'Mr. Smith arrived at 9 a.m. and said: "It costs 3.14 dollars." Cheap!',
  '价格是1,000元，版本是v2.5.1，很稳定。',
  '详情请看 https://example.com/docs/a.b?x=1 这个页面。',
  '**重点**：记得带伞😊！',
  '1. 第一步\n2. 第二步\n',
  'Wait... what happened? I do not know; maybe e.g. the U.S. team knows.',
  '（小声）好吧，那就这样吧。',
  '真的吗？！太好了！！',
  'The quick brown fox jumps over the lazy dog, again and again, until it is tired.\n',
]

/** Mulberry32: a tiny seeded generator, so every run measures the same input. */
export function createRandom(seed: number): () => number {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let value = state
    value = Math.imul(value ^ (value >>> 15), value | 1)
    value ^= value + Math.imul(value ^ (value >>> 7), value | 61)
    return ((value ^ (value >>> 14)) >>> 0) / 4294967296
  }
}

/** About `bytes` bytes (UTF-8) of reply text. */
export function buildReplyText(bytes: number, seed = 1): string {
  const random = createRandom(seed)
  const parts: string[] = []
  let size = 0
  while (size < bytes) {
    const piece = pieces[Math.floor(random() * pieces.length)]!
    parts.push(piece)
    size += Buffer.byteLength(piece)
  }
  return parts.join('')
}

/** Splits text into chunks of 1–8 code points, as a streaming model sends them. */
export function splitIntoChunks(text: string, seed = 2): string[] {
  const random = createRandom(seed)
  const points = Array.from(text)
  const chunks: string[] = []
  for (let index = 0; index < points.length; ) {
    const size = 1 + Math.floor(random() * 8)
    chunks.push(points.slice(index, index + size).join(''))
    index += size
  }
  return chunks
}
