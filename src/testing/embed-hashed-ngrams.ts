/**
 * A deterministic local embedding for tests and benches: a bag of n-grams, feature-hashed into a
 * fixed number of dimensions and normalised to length 1. It is honest about what it is — it knows
 * no meaning, only surface form: texts that share words, word pairs or pieces of words
 * ("photograph" / "photography", "北京" / "北京大学") land close together; synonyms do not.
 *
 * Features, each weighted by `1 + ln(count)`:
 * - words (runs of letters and digits, lowercased, NFKC), weight 1;
 * - adjacent word pairs, weight 0.5;
 * - character trigrams of each Latin word padded with spaces, weight 0.5 (so inflections and misspellings meet);
 * - each CJK character and each pair of adjacent CJK characters, weight 1 (no segmenter needed).
 * A feature is hashed (FNV-1a, 32 bits) to a dimension and to a sign, so collisions cancel out
 * on average instead of piling up.
 */

export interface EmbedHashedNgramsOptions {
  /** @default 512 */
  dimensions?: number
}

export const defaultHashedDimensions = 512

const cjkCharacter = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u
const wordPattern = /[\p{L}\p{N}\p{M}]+/gu

export function embedHashedNgrams(text: string, options: EmbedHashedNgramsOptions = {}): number[] {
  const dimensions = options.dimensions ?? defaultHashedDimensions
  if (!Number.isInteger(dimensions) || dimensions < 1 || dimensions > 65_536)
    throw new RangeError(
      `hashed embedding: dimensions must be a whole number in [1, 65536], got ${dimensions}`,
    )
  const features = collectFeatures(text)
  const vector = new Array<number>(dimensions).fill(0)
  for (const [feature, { weight, count }] of features) {
    const hash = hashFeature(feature)
    const sign = hash & 0x80000000 ? -1 : 1
    const index = (hash & 0x7fffffff) % dimensions
    vector[index] = (vector[index] as number) + sign * weight * (1 + Math.log(count))
  }
  let norm = 0
  for (const value of vector) norm += value * value
  norm = Math.sqrt(norm)
  return norm > 0 ? vector.map((value) => value / norm) : vector
}

function collectFeatures(text: string): Map<string, { weight: number; count: number }> {
  const features = new Map<string, { weight: number; count: number }>()
  const add = (feature: string, weight: number) => {
    const known = features.get(feature)
    if (known) known.count++
    else features.set(feature, { weight, count: 1 })
  }
  const words = text.normalize('NFKC').toLowerCase().match(wordPattern) ?? []
  let previous: string | undefined
  for (const word of words) {
    if (cjkCharacter.test(word)) {
      const characters = [...word]
      characters.forEach((character, index) => {
        add(`c:${character}`, 1)
        const next = characters[index + 1]
        if (next) add(`c:${character}${next}`, 1)
      })
      previous = undefined
      continue
    }
    add(`w:${word}`, 1)
    if (previous) add(`p:${previous} ${word}`, 0.5)
    previous = word
    const padded = ` ${word} `
    for (let index = 0; index + 3 <= padded.length; index++) add(`t:${padded.slice(index, index + 3)}`, 0.5)
  }
  return features
}

/** FNV-1a over the UTF-16 code units, as an unsigned 32-bit number. */
function hashFeature(feature: string): number {
  let hash = 0x811c9dc5
  for (let index = 0; index < feature.length; index++) {
    hash ^= feature.charCodeAt(index)
    hash = Math.imul(hash, 0x01000193)
  }
  return hash >>> 0
}
