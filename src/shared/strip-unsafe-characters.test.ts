import { describe, expect, it } from 'vitest'
import { collectEvents, doneOf, makeConfig } from '../../test/engine/engine-test-helpers.js'
import { createCharpipe } from '../engine/create-charpipe.js'
import { createFakeProvider } from '../testing/create-fake-provider.js'
import { stripUnsafeCharacters } from './strip-unsafe-characters.js'

const unsafe = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/

describe('stripUnsafeCharacters', () => {
  it('returns a clean string as it is and strips controls and bidi overrides', () => {
    const clean = '你好，world!\n\t😊'
    expect(stripUnsafeCharacters(clean)).toBe(clean)
    expect(stripUnsafeCharacters('a\u001b[2Jb\r\n\u202ec\u2067d\u009b\u0000e')).toBe('a[2Jb\ncde')
  })
})

describe('model output reaching clients (createCharpipe)', () => {
  it('carries only configured emotions and no control or bidi characters', async () => {
    const reply = '{"emotion":"<b onclick=x>","text":"好\\u001b]0;title\\u0007的\\u202e。再见\\u009b2J。"}'
    const provider = createFakeProvider({
      replies: [[...reply].map((text) => ({ type: 'text-delta' as const, text }))],
    })
    const charpipe = await createCharpipe(makeConfig(), { provider })
    try {
      const events = await collectEvents(charpipe.generate({ text: '你好' }))
      const done = doneOf(events)
      expect(done.emotion).toBe('平静')
      expect(done.text).toBe('好]0;title的。再见2J。')
      for (const event of events) {
        expect(JSON.stringify(event).replace(/\\u00[0-9a-f]{2}/g, '')).not.toMatch(unsafe)
        if ('emotion' in event) expect(['平静']).toContain(event.emotion)
        if ('text' in event && typeof event.text === 'string') expect(event.text).not.toMatch(unsafe)
      }
      const stored = await charpipe.history('default')
      expect(stored.at(-1)!.content).not.toMatch(unsafe)
    } finally {
      await charpipe.close()
    }
  })
})
