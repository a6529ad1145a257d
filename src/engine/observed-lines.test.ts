import { describe, expect, it } from 'vitest'
import { createObservedLines, type ObservedLine } from './observed-lines.js'

const line = (text: string, id = 'u'): ObservedLine => ({ id: text, speaker: { id }, text })
const budget = { maxChars: 1000, maxLines: 10, maxSessions: 2 }

describe('createObservedLines', () => {
  it('drains a session once, oldest first; peek leaves the lines', () => {
    const lines = createObservedLines()
    lines.add('s', line('a'), budget)
    lines.add('s', line('b'), budget)
    expect(lines.peek('s').map((item) => item.text)).toEqual(['a', 'b'])
    expect(lines.drain('s').map((item) => item.text)).toEqual(['a', 'b'])
    expect(lines.drain('s')).toEqual([])
  })

  it('keeps at most maxSessions sessions, dropping the one observed least recently', () => {
    const lines = createObservedLines()
    lines.add('one', line('1'), budget)
    lines.add('two', line('2'), budget)
    lines.add('one', line('1b'), budget)
    lines.add('three', line('3'), budget)
    expect(lines.peek('two')).toEqual([])
    expect(lines.peek('one').map((item) => item.text)).toEqual(['1', '1b'])
    expect(lines.peek('three').map((item) => item.text)).toEqual(['3'])
  })

  it('drops a single line larger than the whole character budget', () => {
    const lines = createObservedLines()
    lines.add('s', line('x'.repeat(2000)), budget)
    expect(lines.peek('s')).toEqual([])
  })
})
