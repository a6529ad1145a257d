import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { createReaderLedger, type ReaderAccount, type ReaderCut } from './create-reader-ledger.js'

/** A ledger with readers opened by the test, recording every cut with what the others held then. */
function createRecordedLedger(maxTotalBytes: number) {
  const ledger = createReaderLedger({ readMaxTotalBytes: () => maxTotalBytes })
  const accounts: ReaderAccount[] = []
  const cuts: { reader: number; cut: ReaderCut; othersHeld: number[] }[] = []
  const openReader = (maxBytes: number) => {
    const reader = accounts.length
    accounts.push(
      ledger.open({
        maxBytes,
        onCut: (cut) => {
          const othersHeld = accounts.filter((_, index) => index !== reader).map((each) => each.heldBytes)
          cuts.push({ reader, cut, othersHeld })
        },
      }),
    )
    return reader
  }
  return { ledger, accounts, cuts, openReader }
}

type Command =
  | { kind: 'open'; maxBytes: number }
  | { kind: 'hold'; reader: number; bytes: number }
  | { kind: 'close'; reader: number }

const commandArbitrary: fc.Arbitrary<Command> = fc.oneof(
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('open' as const),
      maxBytes: fc.integer({ min: 1, max: 20_000 }),
    }),
  },
  {
    weight: 6,
    arbitrary: fc.record({
      kind: fc.constant('hold' as const),
      reader: fc.nat(20),
      bytes: fc.integer({ min: 0, max: 4000 }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('close' as const), reader: fc.nat(20) }) },
)

describe('createReaderLedger', () => {
  it('never lets the readers together hold more than the bound, whatever they enqueue, drain or close', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 10_000 }),
        fc.array(commandArbitrary, { maxLength: 200 }),
        (maxTotalBytes, commands) => {
          const { ledger, accounts, cuts, openReader } = createRecordedLedger(maxTotalBytes)
          openReader(20_000)
          for (const command of commands) {
            if (command.kind === 'open') openReader(command.maxBytes)
            else {
              const account = accounts[command.reader % accounts.length]!
              if (command.kind === 'hold') account.hold(command.bytes)
              else account.close()
            }
            expect(ledger.totalBytes).toBeLessThanOrEqual(maxTotalBytes)
            // The total is what the readers still open hold, no more and no less.
            expect(ledger.totalBytes).toBe(accounts.reduce((sum, each) => sum + each.heldBytes, 0))
            expect(ledger.readers).toBe(accounts.filter((each) => each.heldBytes > 0).length)
          }
          for (const { cut, othersHeld } of cuts) {
            if (cut.bound === 'total') {
              // The reader cut for the total is the one that lagged most.
              for (const held of othersHeld) expect(cut.heldBytes).toBeGreaterThanOrEqual(held)
              expect(cut.limit).toBe(maxTotalBytes)
            }
          }
        },
      ),
    )
  })

  it('cuts the reader that holds the most when the total passes the bound, not the one that wrote last', () => {
    const { accounts, cuts, openReader } = createRecordedLedger(1000)
    openReader(10_000)
    openReader(10_000)
    openReader(10_000)
    accounts[0]!.hold(600)
    accounts[1]!.hold(100)
    expect(accounts[2]!.hold(400)).toBe(true)
    expect(cuts).toEqual([
      { reader: 0, cut: { bound: 'total', heldBytes: 600, limit: 1000 }, othersHeld: [100, 400] },
    ])
    expect(accounts[0]!.cut).toBe(true)
    // A cut reader holds nothing more.
    expect(accounts[0]!.hold(10)).toBe(false)
    expect(accounts[0]!.heldBytes).toBe(0)
  })

  it('cuts the writer itself when it lags most, and one reader past its own bound whatever the total', () => {
    const { accounts, cuts, openReader } = createRecordedLedger(1000)
    openReader(300)
    openReader(10_000)
    expect(accounts[0]!.hold(301)).toBe(false)
    expect(cuts[0]).toMatchObject({ reader: 0, cut: { bound: 'reader', heldBytes: 301, limit: 300 } })
    expect(accounts[1]!.hold(1001)).toBe(false)
    expect(cuts[1]).toMatchObject({ reader: 1, cut: { bound: 'total', heldBytes: 1001, limit: 1000 } })
  })

  it('keeps nothing of a reader that holds nothing or is closed', () => {
    const { ledger, accounts, openReader } = createRecordedLedger(1000)
    openReader(10_000)
    openReader(10_000)
    accounts[0]!.hold(500)
    accounts[1]!.hold(200)
    expect(ledger.readers).toBe(2)
    accounts[0]!.close()
    accounts[1]!.hold(0)
    expect(ledger.readers).toBe(0)
    expect(ledger.totalBytes).toBe(0)
    // A closed reader is not counted again.
    expect(accounts[0]!.hold(100)).toBe(false)
    expect(ledger.totalBytes).toBe(0)
  })

  it('reads the bound at every check, so a lower one applies to the next write', () => {
    let maxTotalBytes = 10_000
    const ledger = createReaderLedger({ readMaxTotalBytes: () => maxTotalBytes })
    const cuts: ReaderCut[] = []
    const account = ledger.open({ maxBytes: 100_000, onCut: (cut) => cuts.push(cut) })
    account.hold(5000)
    maxTotalBytes = 4000
    account.hold(5001)
    expect(cuts).toEqual([{ bound: 'total', heldBytes: 5001, limit: 4000 }])
  })
})
