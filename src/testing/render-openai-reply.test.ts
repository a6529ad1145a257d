import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { countCodePoints, splitIntoChunks } from './render-openai-reply.js'

/** The definition: an array of code points, cut every `size`. */
function splitByDefinition(text: string, size: number): string[] {
  const characters = Array.from(text)
  const pieces: string[] = []
  for (let start = 0; start < characters.length; start += size)
    pieces.push(characters.slice(start, start + size).join(''))
  return pieces
}

// Whole pairs, lone halves of both kinds, BMP text: every way a string's units can fall.
const unit = fc.constantFrom('a', '慢', '😀', '\ud83d', '\ude00', 'é', '\n')
const text = fc.array(unit, { maxLength: 40 }).map((units) => units.join(''))

describe('the mock reply split into chunks', () => {
  it('cuts any text every `size` code points, as an array of its characters would', () => {
    fc.assert(
      fc.property(text, fc.integer({ min: 1, max: 9 }), (value, size) => {
        expect(splitIntoChunks(value, size)).toEqual(splitByDefinition(value, size))
      }),
      { numRuns: 3_000 },
    )
  })

  it('counts code points as an array of its characters would', () => {
    fc.assert(
      fc.property(text, (value) => {
        expect(countCodePoints(value)).toBe(Array.from(value).length)
      }),
      { numRuns: 3_000 },
    )
  })

  it('never cuts an emoji in half', () => {
    expect(splitIntoChunks('a😀b😀', 1)).toEqual(['a', '😀', 'b', '😀'])
    expect(splitIntoChunks('', 3)).toEqual([])
  })
})
