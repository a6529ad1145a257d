import { describe, expect, it } from 'vitest'
import { CharClass, charClassTable, whitespaceCharacters } from './char-classes.js'

describe('charClassTable', () => {
  it('lists as whitespace exactly the code units /\\s/ matches (line ends as newlines)', () => {
    const matched: number[] = []
    for (let code = 0; code < 0x10000; code++) if (/\s/.test(String.fromCharCode(code))) matched.push(code)
    const listed = [...whitespaceCharacters].map((character) => character.charCodeAt(0)).sort((a, b) => a - b)
    expect(listed).toEqual(matched)
    const classed = matched.map((code) => charClassTable[code])
    for (const [index, code] of matched.entries()) {
      const newline = code === 0x0a || code === 0x2028 || code === 0x2029
      expect(classed[index], `U+${code.toString(16)}`).toBe(
        newline ? CharClass.Newline : CharClass.Whitespace,
      )
    }
  })
})
