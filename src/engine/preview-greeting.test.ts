/**
 * `preview` of a new session shows what its first turn really sends: the greeting the session will
 * open with, and the lorebook entries that greeting brings in. The real first turn then sends the
 * same messages to the model, whichever greeting was picked.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { makeConfig } from '../testing/create-turn-harness.js'
import { type MockModelServer, startMockModelServer } from '../testing/start-mock-model-server.js'
import { collectEvents } from '../testing/turn-events.js'
import { createCharpipe } from './create-charpipe.js'

let server: MockModelServer
beforeAll(async () => {
  server = await startMockModelServer()
})
afterAll(() => server.close())

describe('preview of a new session', () => {
  for (const pick of [0, 0.99]) {
    it(`shows the greeting and what it triggers, as the first turn sends them (random ${pick})`, async () => {
      server.reset()
      server.script([{ text: '{"emotion":"平静"}ok' }])
      const config = makeConfig({
        llm: { provider: 'custom', base_url: `${server.url}/v1`, model: 'm', max_retries: 0 },
        characters: {
          sera: {
            name: 'Sera',
            greeting: 'The lighthouse is dark tonight.',
            alternate_greetings: ['Welcome to the harbour.'],
            lorebook: {
              entries: [
                { keys: ['lighthouse'], content: 'The lighthouse keeper vanished.' },
                { keys: ['harbour'], content: 'The harbour freezes in winter.' },
              ],
            },
          },
        },
      })
      const charpipe = await createCharpipe(config, { random: () => pick })
      try {
        const preview = await charpipe.inspect.preview({ text: 'Hello.', session: 'new', character: 'sera' })
        const shown = preview.messages.map((message) => ({ role: message.role, content: message.content }))
        const greeting = pick === 0 ? 'The lighthouse is dark tonight.' : 'Welcome to the harbour.'
        const lore = pick === 0 ? 'lighthouse keeper' : 'harbour freezes'
        expect(shown).toContainEqual({ role: 'assistant', content: expect.stringContaining(greeting) })
        expect(JSON.stringify(shown)).toContain(lore)
        // Nothing is stored by a preview.
        expect(await charpipe.sessions.history({ session: 'new', character: 'sera' })).toEqual([])

        await collectEvents(charpipe.generate({ text: 'Hello.', session: 'new', character: 'sera' }))
        const sent = (server.requests[0]!.body as { messages: { role: string; content: unknown }[] }).messages
        expect(sent.map((message) => ({ role: message.role, content: message.content }))).toEqual(shown)
      } finally {
        await charpipe.close()
      }
    })
  }
})
