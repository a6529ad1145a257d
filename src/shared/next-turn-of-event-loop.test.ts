import { stat } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { nextPoll, nextTurnOfEventLoop } from './next-turn-of-event-loop.js'

describe('waiting for the event loop', () => {
  it('from the poll phase: the check phase comes before a due timer, the next poll after it', async () => {
    const order: string[] = []
    await new Promise<void>((done) => {
      // A file system callback runs in the poll phase, as sockets' do.
      stat('.', () => {
        setTimeout(() => order.push('timer'), 1)
        // Held past the timer's due time (the real clock, which timers read).
        const due = performance.now() + 2
        while (performance.now() < due) {}
        void nextTurnOfEventLoop().then(() => order.push('check phase'))
        void nextPoll().then(() => {
          order.push('next poll')
          done()
        })
      })
    })
    expect(order).toEqual(['check phase', 'timer', 'next poll'])
  })
})
