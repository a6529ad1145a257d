import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import { describe, expect, it } from 'vitest'
import { appendText } from './append-text.js'

setFlagsFromString('--expose_gc')
const collect = runInNewContext('gc') as () => void
const heldBytes = () => {
  collect()
  collect()
  return process.memoryUsage().heapUsed
}

/**
 * A reply's texts as a turn keeps them, each built from `count` fresh six-character pieces; with
 * `longEvery`, every such piece is 200 characters instead.
 */
function buildTexts(texts: number, count: number, longEvery = 0): string[] {
  const built: string[] = []
  for (let index = 0; index < texts; index++) {
    let text = ''
    // A fresh string per piece, as a parsed model chunk is: nothing but the text holds it.
    for (let piece = 0; piece < count; piece++) {
      const small = `今天的风${String(piece % 100).padStart(2, '0')}`
      text = appendText(text, longEvery && piece % longEvery === 0 ? small.repeat(34) : small)
    }
    built.push(text)
  }
  return built
}

describe('appendText', () => {
  it('gives the same text as joining the pieces', () => {
    const pieces = Array.from({ length: 30_000 }, (_, index) => `今天${index % 10}风`)
    let text = ''
    for (const piece of pieces) text = appendText(text, piece)
    expect(text).toBe(pieces.join(''))
  })

  it('holds a text of many small pieces in about two bytes a character, not a tree of its pieces', () => {
    const before = heldBytes()
    const texts = buildTexts(10, 34_000)
    const held = heldBytes() - before
    const characters = texts.reduce((sum, text) => sum + text.length, 0)
    // Flat: two bytes a character, and up to an eighth of each text not flat yet. A tree of the
    // pieces would be about eight bytes a character.
    expect(held).toBeLessThan(characters * 2 * 1.6)
    expect(texts[0]).toHaveLength(34_000 * 6)
  })

  it('also when long pieces come between the small ones (a long piece is not worth a copy)', () => {
    const before = heldBytes()
    const texts = buildTexts(10, 30_000, 50)
    const held = heldBytes() - before
    const characters = texts.reduce((sum, text) => sum + text.length, 0)
    expect(held).toBeLessThan(characters * 2 * 1.6)
  })
})
