import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { characterLimits } from '../schema/character-limits.js'
import { lorebookSchema } from '../schema.js'
import { compileBoundedPattern } from './compile-bounded-pattern.js'
import { compileLorebookPatterns } from './compile-lorebook-patterns.js'
import { estimatePatternSize } from './estimate-pattern-size.js'
import { loadRe2 } from './load-re2.js'

const maxInstructions = characterLimits.patternInstructions

function lorebookOf(entries: { keys: string[]; secondary_keys?: string[]; name?: string }[]) {
  return lorebookSchema.parse({ entries: entries.map((entry) => ({ content: 'c', ...entry })) })
}

describe('compileBoundedPattern', () => {
  const compile = (pattern: string) => compileBoundedPattern({ pattern, flags: 0, maxInstructions })

  it('compiles a pattern within the bound and gives its program size', () => {
    const compiled = compile('drag(on|oon)s?')
    expect('instructions' in compiled && compiled.instructions).toBeGreaterThan(5)
    expect('instructions' in compiled && compiled.instructions).toBeLessThan(40)
  })

  it('refuses a pattern whose program is larger than the bound, with its size', () => {
    expect(compile('(?:[a-z]?){900}[0-9]')).toEqual({
      problem: 'the pattern is too costly (program of 1803 instructions; at most 1000)',
      compiled: 1803,
    })
  })

  it('refuses a pattern far over the bound on its estimate, without compiling it', () => {
    expect(compile('x{999}'.repeat(60))).toEqual({
      problem: expect.stringMatching(
        /^the pattern is too costly \(program of about \d+ instructions; at most 1000\)$/,
      ),
      compiled: 0,
    })
  })

  it('says why RE2 cannot run a pattern', () => {
    expect(compile('(a)\\1')).toMatchObject({ problem: expect.stringMatching(/backreferences/) })
    expect(compile('a{2000}')).toMatchObject({
      problem: expect.stringMatching(/invalid repeat count|too costly/),
    })
    expect(compile('(')).toMatchObject({ problem: expect.stringMatching(/invalid regular expression/) })
  })
})

describe('compileLorebookPatterns', () => {
  it('refuses a lorebook of 1,000 keys like /(?:[a-z]?){900}[0-9]/, naming the entry and the key', () => {
    const lorebook = lorebookOf(
      Array.from({ length: 1_000 }, (_, index) => ({
        name: index === 3 ? 'Dragons' : '',
        keys: ['dragon', '/(?:[a-z]?){900}[0-9]/'],
      })),
    )
    const compiled = compileLorebookPatterns(lorebook)
    expect(compiled.patterns).toEqual([])
    expect(compiled.issues[3]).toEqual({
      path: 'entries.3.keys.1',
      message:
        'lorebook entry 3 ("Dragons"), key 1: the pattern is too costly (program of 1803 instructions; at most 1000)',
    })
    // Compiling stops once the refused programs of 1,803 instructions pass the lorebook's bound.
    const stopAt = Math.floor(characterLimits.lorebookPatternInstructions / 1803)
    expect(compiled.issues).toHaveLength(stopAt + 1)
    expect(compiled.issues.at(-1)).toEqual({
      path: `entries.${stopAt}.keys.1`,
      message: `lorebook entry ${stopAt}, key 1: the lorebook's patterns compile to more than ${characterLimits.lorebookPatternInstructions} instructions together; this key and the later ones are not used`,
    })
  })

  it('bounds the instructions of all patterns together, and compiles none past the bound', () => {
    // 903 instructions each: within the bound one by one, not 1,000 of them together.
    const lorebook = lorebookOf(Array.from({ length: 1_000 }, () => ({ keys: ['/(?:[a-z]?){450}[0-9]/'] })))
    const compiled = compileLorebookPatterns(lorebook)
    const fits = Math.floor(characterLimits.lorebookPatternInstructions / 903)
    expect(compiled.patterns).toHaveLength(fits)
    expect(compiled.instructions).toBe(fits * 903)
    expect(compiled.issues).toEqual([
      {
        path: `entries.${fits}.keys.0`,
        message: expect.stringMatching(
          /^lorebook entry \d+, key 0: the lorebook's patterns compile to more than 50000/,
        ),
      },
    ])
  })

  it('names secondary keys and bad flags, and leaves disabled entries and plain words alone', () => {
    const lorebook = lorebookSchema.parse({
      entries: [
        { keys: ['/a/q'], secondary_keys: ['plain', '/(?=x)/'], content: 'c' },
        { keys: ['/(?=x)/'], enabled: false, content: 'off' },
      ],
    })
    expect(compileLorebookPatterns(lorebook).issues).toEqual([
      {
        path: 'entries.0.keys.0',
        message: expect.stringMatching(/^lorebook entry 0, key 0: flag "q" is not supported/),
      },
      {
        path: 'entries.0.secondary_keys.1',
        message: expect.stringMatching(/^lorebook entry 0, secondary key 1: lookahead and lookbehind/),
      },
    ])
  })

  it('compiles any pattern within the bound or refuses it with a message naming its key', () => {
    const piece = fc.constantFrom(
      ...['(', ')', '(?:', '(?P<n>', '(?i)', '(?i:', '(?=', '|', '^', '$', '\\b', '\\Q', '\\E'],
      ...['[a-z]', '[^z]', '[]a]', '[\\]]', '.', 'a', 'b', '龙', '😀', '\\d', '\\p{L}', '\\x{41}', '\\1'],
      ...['?', '*', '+', '*?', '{0}', '{2}', '{30}', '{900}', '{10,50}', '{3,}', '{', '}', ','],
    )
    fc.assert(
      fc.property(
        fc.array(piece, { minLength: 1, maxLength: 20 }),
        fc.constantFrom('', 'i', 's'),
        (pieces, flags) => {
          const pattern = pieces.join('')
          const compiled = compileLorebookPatterns(
            lorebookOf([{ name: 'P', keys: ['word', `/${pattern}/${flags}`] }]),
          )
          if (compiled.issues.length > 0) {
            expect(compiled.patterns).toEqual([])
            expect(compiled.issues[0]!.message).toMatch(/^lorebook entry 0 \("P"\), key 1: \S/)
          } else {
            expect(compiled.patterns).toHaveLength(1)
            const { instructions } = compiled.patterns[0]!
            expect(instructions).toBeLessThanOrEqual(maxInstructions)
            // The estimate that refuses patterns unseen is never below the real size.
            expect(estimatePatternSize(loadRe2().translateRegExp(pattern))).toBeGreaterThanOrEqual(
              instructions,
            )
          }
        },
      ),
      { numRuns: 400 },
    )
  })
})
