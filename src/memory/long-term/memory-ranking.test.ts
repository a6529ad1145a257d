import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  computeKeywordBoost,
  computeLengthPenalty,
  computeLengthPrior,
  computeTimeDecay,
  defaultMemoryRanking,
  type MemoryRankingOptions,
} from './memory-ranking.js'

const day = 86_400_000
const rules = (overrides: Partial<MemoryRankingOptions> = {}) => ({ ...defaultMemoryRanking, ...overrides })

describe('computeTimeDecay', () => {
  it('keeps a fresh memory at 1 and halves the decaying share every half-life', () => {
    const options = rules({ halfLifeDays: 10, decayWeight: 0.4 })
    expect(computeTimeDecay(0, options)).toBe(1)
    expect(computeTimeDecay(10 * day, options)).toBeCloseTo(0.6 + 0.4 * 0.5)
    expect(computeTimeDecay(20 * day, options)).toBeCloseTo(0.6 + 0.4 * 0.25)
    expect(computeTimeDecay(10_000 * day, options)).toBeCloseTo(0.6)
  })

  it('is off with weight 0 and treats future times as now', () => {
    expect(computeTimeDecay(100 * day, rules({ decayWeight: 0 }))).toBe(1)
    expect(computeTimeDecay(-5 * day, rules())).toBe(1)
  })
})

describe('computeLengthPenalty', () => {
  const options = rules({ shortTerms: 4, longTerms: 100 })
  it('penalises very short snippets, more the shorter they are', () => {
    expect(computeLengthPenalty(1, options)).toBeLessThan(computeLengthPenalty(3, options))
    expect(computeLengthPenalty(3, options)).toBeLessThan(1)
  })
  it('leaves normal snippets alone and penalises very long ones', () => {
    expect(computeLengthPenalty(4, options)).toBe(1)
    expect(computeLengthPenalty(100, options)).toBe(1)
    expect(computeLengthPenalty(400, options)).toBeCloseTo(0.5)
  })
})

describe('computeLengthPrior', () => {
  const prior = { weight: 0.5, pivot: 2 }
  it('scales a memory shorter than the pivot (a multiple of the average) by (terms / pivot) ^ weight', () => {
    expect(computeLengthPrior(5, 5, prior)).toBeCloseTo(Math.sqrt(0.5))
    expect(computeLengthPrior(1, 5, prior)).toBeCloseTo(Math.sqrt(0.1))
    expect(computeLengthPrior(0, 5, prior)).toBe(computeLengthPrior(1, 5, prior))
    expect(computeLengthPrior(10, 5, prior)).toBe(1)
    expect(computeLengthPrior(400, 5, prior)).toBe(1)
  })

  it('is off with weight 0 or no average', () => {
    expect(computeLengthPrior(1, 5, { weight: 0, pivot: 2 })).toBe(1)
    expect(computeLengthPrior(1, 0, prior)).toBe(1)
    // A pivot under one word (memories of almost no words): an empty memory counts one, past it.
    expect(computeLengthPrior(0, 0.01, { weight: 0.5, pivot: 2 })).toBe(1)
  })

  it('rises with the length and stays in (0, 1]', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 500 }),
        fc.integer({ min: 0, max: 500 }),
        fc.double({ min: 0.01, max: 100, noNaN: true }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (shorter, extra, average, weight) => {
          const options = { weight, pivot: 2 }
          const low = computeLengthPrior(shorter, average, options)
          expect(low).toBeGreaterThan(0)
          expect(low).toBeLessThanOrEqual(1)
          expect(computeLengthPrior(shorter + extra, average, options)).toBeGreaterThanOrEqual(low)
        },
      ),
    )
  })
})

describe('computeKeywordBoost', () => {
  const rareTerms = new Map([
    ['prius', 3],
    ['jasper', 1],
  ])
  it('rewards a snippet by the IDF-weighted share of rare query terms it contains', () => {
    const options = rules({ keywordBoost: 0.4 })
    expect(computeKeywordBoost({ rareTerms, snippetTerms: new Set(['prius', 'car']) }, options)).toBeCloseTo(
      1.3,
    )
    expect(
      computeKeywordBoost({ rareTerms, snippetTerms: new Set(['prius', 'jasper']) }, options),
    ).toBeCloseTo(1.4)
    expect(computeKeywordBoost({ rareTerms, snippetTerms: new Set(['car']) }, options)).toBe(1)
  })
  it('is neutral with no rare terms or the boost off', () => {
    expect(computeKeywordBoost({ rareTerms: new Map(), snippetTerms: new Set(['x']) }, rules())).toBe(1)
    expect(
      computeKeywordBoost({ rareTerms, snippetTerms: new Set(['prius']) }, rules({ keywordBoost: 0 })),
    ).toBe(1)
  })
})
