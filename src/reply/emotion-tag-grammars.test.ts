import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { maxActTokenUnits, readActToken, writeActToken } from './act-token-grammar.js'
import { isBracketName, readBracketTag, writeBracketTag } from './bracket-tag-grammar.js'
import { createEmotionResolver } from './emotion-resolver.js'
import { createInlineTagExtractor } from './inline-emotion-tags.js'

/** Runs text through the reply's inline tag reader in the given pieces: its text and emotions. */
function readInline(pieces: readonly string[], labels: readonly string[]) {
  const resolver = createEmotionResolver({
    emotions: labels,
    aliases: {},
    defaultEmotion: labels[0]!,
    log: () => {},
  })
  let text = ''
  const emotions: string[] = []
  const extractor = createInlineTagExtractor({
    resolver,
    onText: (piece) => {
      text += piece
    },
    onEmotion: (emotion) => emotions.push(emotion),
  })
  for (const piece of pieces) extractor.write(piece)
  extractor.end()
  return { text, emotions }
}

/** `text` cut at the given points, in order. */
const cut = (text: string, points: readonly number[]) => {
  const sorted = [...new Set(points.map((point) => point % (text.length + 1)))].sort((a, b) => a - b)
  const pieces: string[] = []
  let start = 0
  for (const point of sorted) {
    pieces.push(text.slice(start, point))
    start = point
  }
  pieces.push(text.slice(start))
  return pieces
}

describe('the ACT token grammar', () => {
  it.each([
    ['<|ACT:{"emotion":{"name":"happy","intensity":1}}|>', { name: 'happy', intensity: 1 }],
    ['<|ACT {"emotion":{"name":"sad","intensity":0.5}}|>', { name: 'sad', intensity: 0.5 }],
    [
      '<|ACT:"emotion":{"name":"question","intensity":0.7},"motion":"x"|>',
      { name: 'question', intensity: 0.7 },
    ],
    ['<|ACT {"emotion":"happy"}|>', { name: 'happy', intensity: 1 }],
    ['<| ACT : {"emotion":"开心"} |>', { name: '开心', intensity: 1 }],
    ['<|ACT:{"motion":"wave"}|>', undefined],
    ['<|ACT:{"emotion":""}|>', undefined],
    ['<|ACT:not json|>', undefined],
    ['<|DELAY:1|>', undefined],
  ])('reads %s', (token, expected) => {
    expect(readActToken(token)).toEqual(expected)
  })

  it('writes the form AIRI documents', () => {
    expect(writeActToken({ name: 'happy', intensity: 1 })).toBe(
      '<|ACT:{"emotion":{"name":"happy","intensity":1}}|>',
    )
  })

  it('reads back exactly what it wrote, for any name and intensity', () => {
    fc.assert(
      fc.property(
        fc.string({ minLength: 1 }).filter((name) => name.trim() !== ''),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (name, intensity) => {
          expect(readActToken(writeActToken({ name, intensity }))).toEqual({ name, intensity })
        },
      ),
    )
  })

  it('is read by the reply parser, in any chunking, from what the /v1 writer writes', () => {
    const labels = ['开心', 'happy', 'sad', 'a|>b']
    fc.assert(
      fc.property(
        fc.constantFrom(...labels),
        fc.string(),
        fc.array(fc.nat(), { maxLength: 6 }),
        (label, after, points) => {
          const token = writeActToken({ name: label, intensity: 1 })
          expect(token.length).toBeLessThanOrEqual(maxActTokenUnits)
          const text = after.replace(/[<[]/g, '')
          const read = readInline(cut(`${token}${text}`, points), labels)
          expect(read).toEqual({ text, emotions: [label] })
        },
      ),
    )
  })
})

describe('the bracket tag grammar', () => {
  it.each([
    ['[开心]', '开心'],
    ['[happy]', 'happy'],
    ['[]', undefined],
    ['[a[b]', undefined],
    [`[${'x'.repeat(17)}]`, undefined],
    ['happy', undefined],
  ])('reads %s', (tag, expected) => {
    expect(readBracketTag(tag)).toBe(expected)
  })

  it('reads back exactly what it wrote, for any name it can carry', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1, maxLength: 16 }).filter(isBracketName), (name) => {
        expect(readBracketTag(writeBracketTag(name))).toBe(name)
      }),
    )
  })

  it('is read by the reply parser, in any chunking, for a configured label', () => {
    const labels = ['开心', 'happy', 'sad']
    fc.assert(
      fc.property(
        fc.constantFrom(...labels),
        fc.string(),
        fc.array(fc.nat(), { maxLength: 6 }),
        (label, after, points) => {
          const text = after.replace(/[<[]/g, '')
          expect(readInline(cut(`${writeBracketTag(label)}${text}`, points), labels)).toEqual({
            text,
            emotions: [label],
          })
        },
      ),
    )
  })
})
