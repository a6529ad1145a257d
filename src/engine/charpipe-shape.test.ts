/**
 * The shape of the `Charpipe` object: at most 16 top-level members, the rest grouped; and every
 * name it had before the groups still answering, for one release, through the grouped member.
 */
import { describe, expect, it } from 'vitest'
import type { SessionEvent } from '../audience/create-audience-hub.js'
import { createInMemoryHistoryStore } from '../memory/index.js'
import type { CharpipeEvent } from '../shared/events.js'
import { createFakeParts } from '../testing/create-fake-engine-parts.js'
import { createScriptedProvider } from '../testing/create-scripted-provider.js'
import { makeConfig } from '../testing/create-turn-harness.js'
import { collectEvents, doneOf } from '../testing/turn-events.js'
import { createCharpipe } from './create-charpipe.js'
import type { DeprecatedCharpipeMembers } from './deprecated-charpipe-members.js'
import type { Charpipe } from './types.js'

/** Every top-level member of `Charpipe`: the compiler fails here when one is added or removed. */
const topLevel: Record<keyof Charpipe, true> = {
  generate: true,
  run: true,
  on: true,
  off: true,
  interrupt: true,
  reload: true,
  close: true,
  config: true,
  memory: true,
  cluster: true,
  sessions: true,
  audience: true,
  inspect: true,
  records: true,
  people: true,
}

/** Every former name; `run` and `audience` are both: members still callable the former way. */
const deprecated: Record<keyof DeprecatedCharpipeMembers, true> = {
  run: true,
  observe: true,
  audience: true,
  activity: true,
  subscribe: true,
  audienceQueue: true,
  moderateAudience: true,
  audienceStats: true,
  preview: true,
  history: true,
  keepRecord: true,
  readRecord: true,
  clearSession: true,
  open: true,
  characters: true,
  activeSessions: true,
  listProcessors: true,
  listTools: true,
  toolCallStats: true,
  preflightStats: true,
}

async function setup(chunks: string[][] = [['好的。']]) {
  const historyStore = createInMemoryHistoryStore()
  const charpipe = await createCharpipe(makeConfig(), {
    parts: createFakeParts(),
    provider: createScriptedProvider(chunks.map((step) => ({ chunks: step }))),
    historyStore,
  })
  return { charpipe, historyStore }
}

describe('the Charpipe object', () => {
  it('has at most 16 top-level members, and exactly these besides the former names', async () => {
    const { charpipe } = await setup()
    const names = Object.keys(topLevel)
    expect(names.length).toBeLessThanOrEqual(16)
    const formerOnly = Object.keys(deprecated).filter((name) => !(name in topLevel))
    const present = Object.keys(charpipe).filter((name) => !formerOnly.includes(name))
    expect(present.sort()).toEqual(names.sort())
    await charpipe.close()
  })

  it('runs a turn with options (run(input, { onEvent })) and the former way (run(input, onEvent))', async () => {
    const { charpipe } = await setup([['一。'], ['二。']])
    const grouped: CharpipeEvent[] = []
    await charpipe.run({ text: '一' }, { onEvent: (event) => grouped.push(event) })
    const former: CharpipeEvent[] = []
    await charpipe.run({ text: '二' }, (event) => former.push(event))
    expect(doneOf(grouped).text).toBe('一。')
    expect(doneOf(former).text).toBe('二。')
    await expect(charpipe.run({ text: '三' }, {} as never)).rejects.toThrow(/onEvent/)
    await charpipe.close()
  })

  it('answers every former name through its grouped member', async () => {
    const { charpipe } = await setup([['好的。']])
    await collectEvents(charpipe.generate({ session: 's', text: '嗨' }))
    const history = await charpipe.sessions.history({ session: 's' })
    expect(history.map((message) => message.content)).toEqual(['嗨', '好的。'])
    expect(await charpipe.history('s', { limit: 1 })).toEqual(history.slice(-1))
    expect(charpipe.characters()).toEqual(charpipe.inspect.characters())
    expect(charpipe.activeSessions()).toEqual([])
    expect(charpipe.listProcessors()).toEqual(charpipe.inspect.processors())
    expect(charpipe.listTools()).toEqual({ tools: [], servers: [] })
    expect(charpipe.toolCallStats?.()).toEqual([])
    expect(charpipe.preflightStats?.()).toEqual(charpipe.inspect.preflight?.())
    expect((await charpipe.preview({ session: 's', text: '再见' })).messages.at(-1)?.content).toContain(
      '再见',
    )
    expect(charpipe.observe({ session: 's', speaker: { id: 'u2' }, text: '我也在' })).toHaveProperty('id')
    expect(await charpipe.open({ session: 'new' })).toEqual({})

    await charpipe.keepRecord('notes', 'n1', 'first')
    expect(await charpipe.readRecord('notes', 'n1')).toBe('first')
    expect(await charpipe.records.read({ kind: 'notes', id: 'n1' })).toBe('first')

    const followed: SessionEvent[] = []
    const stop = charpipe.subscribe('room', (event) => followed.push(event), { live: false })
    const message = { id: 'm1', speaker: { id: 'v1' }, text: '主播好' }
    expect(charpipe.audience({ session: 'room', messages: [message] })).toMatchObject({ accepted: 1 })
    expect(charpipe.audience.send({ session: 'room', messages: [message] })).toMatchObject({ accepted: 0 })
    expect(charpipe.audienceQueue('room').session).toBe('room')
    expect(charpipe.moderateAudience({ session: 'room', id: 'absent', action: 'drop' })).toBe(false)
    expect(charpipe.audienceStats()).toMatchObject({ messagesIn: 2 })
    charpipe.activity({ session: 'room', speaking: false })
    stop()

    await charpipe.clearSession('s')
    expect(await charpipe.sessions.history({ session: 's' })).toEqual([])
    await charpipe.close()
  })

  it('refuses the former positional form on a grouped member with a clear error', async () => {
    const { charpipe } = await setup()
    await expect(charpipe.sessions.history('s' as never)).rejects.toThrow(/sessions.history takes an object/)
    await expect(charpipe.sessions.clear('s' as never)).rejects.toThrow(/sessions.clear takes an object/)
    expect(() => charpipe.sessions.follow({ session: 's' } as never)).toThrow(/onEvent/)
    await charpipe.close()
  })
})
