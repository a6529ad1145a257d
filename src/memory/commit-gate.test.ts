import { describe, expect, it } from 'vitest'
import { createCommitGate } from './commit-gate.js'

describe('createCommitGate', () => {
  it('closed before the store asks: the write may not commit, and it was not sent', () => {
    const commit = createCommitGate()
    commit.gate.watch()
    expect(commit.close()).toBe('not_sent')
    expect(commit.gate.mayCommit()).toBe(false)
  })

  it('asked before it is closed: the commit was sent', () => {
    const commit = createCommitGate()
    commit.gate.watch()
    expect(commit.gate.mayCommit()).toBe(true)
    expect(commit.close()).toBe('sent')
  })

  it('a store that never said it watches the gate: only a read-back can tell', () => {
    const commit = createCommitGate()
    expect(commit.close()).toBe('unknown')
  })
})
