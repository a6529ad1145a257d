import { describe, expect, it } from 'vitest'
import { createCharpipe } from '../engine/create-charpipe.js'
import { createFakeProvider } from '../testing/create-fake-provider.js'
import { makeConfig } from '../testing/create-turn-harness.js'
import { collectEvents, doneOf } from '../testing/turn-events.js'
import { stripUnsafeCharacters } from './strip-unsafe-characters.js'

const unsafe =
  /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200b\u200e\u200f\u2028-\u202e\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb]/

describe('stripUnsafeCharacters', () => {
  it('returns a clean string as it is and strips controls and bidi overrides', () => {
    const clean = '你好，world!\n\t😊'
    expect(stripUnsafeCharacters(clean)).toBe(clean)
    expect(stripUnsafeCharacters('a\u001b[2Jb\r\n\u202ec\u2067d\u009b\u0000e')).toBe('a[2Jb\ncde')
  })

  it('turns line and paragraph separators into line feeds and drops bidi marks and invisible format characters', () => {
    expect(stripUnsafeCharacters('a\u2028b\u2029c')).toBe('a\nb\nc')
    expect(stripUnsafeCharacters('\u200fright\u200e\u061c \u200bzero\u2060\ufeff\ufff9x\u206a')).toBe(
      'right zerox',
    )
    // Joiners stay: emoji sequences and scripts need them.
    const joined = '👨\u200d👩 می\u200cخواهم'
    expect(stripUnsafeCharacters(joined)).toBe(joined)
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
      const stored = await charpipe.sessions.history({ session: 'default' })
      expect(stored.at(-1)!.content).not.toMatch(unsafe)
    } finally {
      await charpipe.close()
    }
  })

  it('keeps U+2028, U+2029, U+200F and their kind out of subtitles and speech, however written', async () => {
    const raw = '{"emotion":"开心","text":"第一句\u2028第二\u200f句。\u2029\u202b第三句\u2060。"}'
    const escaped = '{"emotion":"开心","text":"第一句\\u2028第二\\u200F句。\\u2029\\u202b第三句\\u2060。"}'
    for (const reply of [raw, escaped]) {
      const provider = createFakeProvider({
        replies: [[...reply].map((text) => ({ type: 'text-delta' as const, text }))],
      })
      const charpipe = await createCharpipe(
        makeConfig({ character: { greeting: 'Hi\u2028there\u200f, {{user}}.' } }),
        { provider },
      )
      try {
        const events = await collectEvents(charpipe.generate({ text: '你好' }))
        for (const event of events) expect(JSON.stringify(event)).not.toMatch(/\\u20(?:28|29|0f|2b|60)/i)
        for (const event of events) expect(JSON.stringify(event)).not.toMatch(unsafe)
        // Sentences are the speech text; display text is the deltas and the done text.
        const sentences = events.flatMap((event) => (event.type === 'llm_sentence' ? [event.text] : []))
        expect(sentences).toEqual(['第一句', '第二句。', '第三句。'])
        expect(doneOf(events).text).toBe('第一句\n第二句。\n第三句。')
        const greeting = events.find((event) => event.type === 'greeting') as { text: string } | undefined
        expect(greeting?.text).toMatch(/^Hi\nthere, /)
      } finally {
        await charpipe.close()
      }
    }
  })
})
