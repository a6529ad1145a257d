import { describe, expect, it } from 'vitest'
import { createInMemoryHistoryStore } from '../memory/index.js'
import { createFakeParts } from '../testing/create-fake-engine-parts.js'
import { createScriptedProvider, type ScriptedStep } from '../testing/create-scripted-provider.js'
import { makeConfig } from '../testing/create-turn-harness.js'
import { collectEvents, doneOf } from '../testing/turn-events.js'
import { createCharpipe } from './create-charpipe.js'

const config = () =>
  makeConfig({
    character: { name: '小助手' },
    characters: {
      alice: { name: 'Alice', greeting: '你好，{{user}}！', alternate_greetings: ['又见面了，{{user}}。'] },
      bob: { name: 'Bob', persona: 'BOB' },
    },
  })

async function setup(steps: ScriptedStep[] = [{ chunks: ['好的。'] }], random = () => 0) {
  const provider = createScriptedProvider(steps)
  const historyStore = createInMemoryHistoryStore()
  const charpipe = await createCharpipe(config(), {
    parts: createFakeParts(),
    provider,
    historyStore,
    random,
  })
  return { charpipe, provider, historyStore }
}

describe('createCharpipe: several characters', () => {
  it('greets a new session once, whether it is opened, spoken to, or both at once', async () => {
    const { charpipe, historyStore } = await setup()
    const [opened, events] = await Promise.all([
      charpipe.sessions.open({ session: 's', character: 'alice' }),
      collectEvents(charpipe.generate({ session: 's', character: 'alice', text: '嗨' })),
    ])
    const greetings = [opened.greeting?.content, ...events.filter((event) => event.type === 'greeting')]
    expect(greetings.filter(Boolean)).toHaveLength(1)
    const stored = await historyStore.listMessages({ character: 'alice', session: 's' })
    expect(stored.map((message) => `${message.role}:${message.content}`)).toEqual([
      'assistant:你好，用户！',
      'user:嗨',
      'assistant:好的。',
    ])
    expect(await charpipe.sessions.open({ session: 's', character: 'alice' })).toEqual({})
    // After the session is deleted it is new again, and greeted again.
    await charpipe.sessions.clear({ session: 's', character: 'alice' })
    expect((await charpipe.sessions.open({ session: 's', character: 'alice' })).greeting?.content).toBe(
      '你好，用户！',
    )
    await charpipe.close()
  })

  it('picks among the greetings with the random source, and does not greet for a character without one', async () => {
    const { charpipe, historyStore } = await setup(undefined, () => 0.99)
    const events = await collectEvents(charpipe.generate({ session: 't', character: 'alice', text: '嗨' }))
    expect(events[0]).toMatchObject({ type: 'greeting', text: '又见面了，用户。', session: 't' })
    const bob = await collectEvents(charpipe.generate({ session: 't', character: 'bob', text: '嗨' }))
    expect(bob.some((event) => event.type === 'greeting')).toBe(false)
    expect((await historyStore.listMessages({ character: 'bob', session: 't' }))[0]!.role).toBe('user')
    await charpipe.close()
  })

  it("stops only the named character's turn, and every character's turn without a name", async () => {
    const { charpipe, provider } = await setup([{ chunks: ['一', '二', '三'], delayMs: 200 }])
    const alice = collectEvents(charpipe.generate({ session: 'u', character: 'alice', text: '长' }))
    const bob = collectEvents(charpipe.generate({ session: 'u', character: 'bob', text: '长' }))
    // Both model calls have started: both turns are running.
    await Promise.all([provider.started(0), provider.started(1)])
    await charpipe.interrupt('u', { character: 'bob' })
    expect(doneOf(await bob).interrupted).toBe(true)
    expect(doneOf(await alice).interrupted).toBe(false)

    const both = [
      collectEvents(charpipe.generate({ session: 'v', character: 'alice', text: '长' })),
      collectEvents(charpipe.generate({ session: 'v', text: '长' })),
    ]
    await Promise.all([provider.started(2), provider.started(3)])
    await charpipe.interrupt('v')
    for (const events of await Promise.all(both)) expect(doneOf(events).interrupted).toBe(true)
    await charpipe.close()
  })

  it('refuses an unknown character by name, listing the known ones, for turns, open and history', async () => {
    const { charpipe, provider } = await setup()
    const events = await collectEvents(charpipe.generate({ character: 'carol', text: '嗨' }))
    expect(events.find((event) => event.type === 'llm_error')).toMatchObject({
      code: 'bad_request',
      message: 'character "carol" is not configured; known characters: "小助手", "alice", "bob"',
    })
    expect(provider.requests).toHaveLength(0)
    await expect(charpipe.sessions.open({ character: 'carol' })).rejects.toThrow(
      'character "carol" is not configured',
    )
    await expect(charpipe.sessions.history({ session: 'default', character: 'carol' })).rejects.toThrow(
      '"carol"',
    )
    expect(charpipe.inspect.characters()).toEqual(['小助手', 'alice', 'bob'])
    await charpipe.close()
  })

  it('the builtin mock answers as the character spoken to', async () => {
    const charpipe = await createCharpipe(
      makeConfig({
        llm: { provider: 'mock' },
        history: { store: 'memory' },
        memory: { enabled: false },
        character: { name: '小助手' },
        characters: { alice: { name: 'Alice', reply_format: 'plain' } },
      }),
    )
    const alice = doneOf(await collectEvents(charpipe.generate({ character: 'alice', text: '你是谁' })))
    const main = doneOf(await collectEvents(charpipe.generate({ text: '你是谁' })))
    expect(alice.text).toContain('我是Alice')
    expect(main.text).toContain('我是小助手')
    await charpipe.close()
  })
})
