/**
 * Per-person memory through the running server, its connectors and the mock model server: a fact
 * told in a QQ group is recalled in the Bilibili room once the two ids are linked (not before), the
 * people API lists, exports, corrects and unlinks without losing a fact, and erasing a person
 * removes what is known about them everywhere (with history=true, their words in the stored
 * history too), so a later turn's prompt no longer has it.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import { type MockModelServer, startMockModelServer } from '../../src/testing/index.js'
import { danmakuCommand } from '../connectors/__fixtures__/bilibili-commands.js'
import { type FakeBilibiliLive, startFakeBilibiliLive } from '../connectors/fake-bilibili-live.js'
import { type FakeOnebot, startFakeOnebot } from '../connectors/fake-onebot-implementation.js'
import { startServerOverModel, type TestServer } from './start-test-server.js'

const roomId = 21452505
const cookie = 'SESSDATA=sess-people; bili_jct=csrf-people; DedeUserID=555; buvid3=b'
const qqPerson = 'onebot:qq:42'
const roomPerson = 'bilibili:room:20'
const fact = 'my favourite fruit is durian'

let model: MockModelServer
let server: TestServer | undefined
let onebot: FakeOnebot | undefined
let room: FakeBilibiliLive | undefined

beforeAll(async () => {
  model = await startMockModelServer({ respond: () => ({ text: 'Noted, thank you.' }) })
})
afterAll(async () => {
  await model.close()
})
afterEach(async () => {
  await server?.stop()
  await onebot?.close()
  await room?.close()
  server = undefined
  onebot = undefined
  room = undefined
  model.reset()
})

async function startWithConnectors(perPerson = true) {
  onebot = await startFakeOnebot({ accessToken: 'people-secret' })
  room = await startFakeBilibiliLive({ roomId, ownerUid: 1, csrf: 'csrf-people' })
  const running = await startServerOverModel(model.url, [
    'character: { name: Nova, reply_format: plain, language: en }',
    `memory: { per_person: ${perPerson}, min_score: 0 }`,
    'audience: { reply: every, min_gap_ms: 0 }',
    'connectors:',
    '  onebot:',
    '    - name: qq',
    `      url: ${onebot.url}`,
    '      access_token: people-secret',
    '      groups: [123]',
    '  bilibili:',
    '    - name: room',
    `      room_id: ${roomId}`,
    `      url: ${room.url}`,
    `      api_url: ${room.apiUrl}`,
    `      cookie: "${cookie}"`,
    '      post_replies: true',
  ])
  server = running
  await vi.waitFor(
    async () => {
      const answer = await fetch(`${running.url}/api/connectors`).then((response) => response.json())
      expect(answer.connectors.map((connector: { state: string }) => connector.state)).toEqual([
        'ready',
        'ready',
      ])
    },
    { timeout: 15_000 },
  )
  return running
}

const personPath = (person: string) => `/api/people/${encodeURIComponent(person)}`

async function call(method: string, path: string, body?: unknown) {
  const response = await fetch(`${server!.url}${path}`, {
    method,
    ...(body === undefined
      ? {}
      : { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }),
  })
  return { status: response.status, body: await response.json() }
}

async function memoriesOf(person: string) {
  const answer = await call('GET', `${personPath(person)}/memories`)
  return answer.status === 200 ? (answer.body.memories as { text: string }[]) : []
}

/** Says `text` in the QQ group as user 42 and waits until the turn is remembered. */
async function sayInGroup(text: string) {
  const asked = model.requests.length
  onebot!.sendGroupMessage({
    groupId: 123,
    userId: 42,
    card: 'Ming',
    message: [{ type: 'text', data: { text } }],
  })
  await vi.waitFor(() => expect(model.requests.length).toBeGreaterThan(asked), { timeout: 15_000 })
  return JSON.stringify(model.requests.at(-1)?.body)
}

let danmakuCount = 0
/** Sends a danmaku from viewer 20 and returns the prompt the model received for it. */
async function sayInRoom(text: string) {
  const asked = model.requests.length
  danmakuCount += 1
  room!.send([
    danmakuCommand({ uid: 20, name: 'Viewer', idStr: `people-${danmakuCount}`, text, userLevel: 20 }),
  ])
  await vi.waitFor(() => expect(model.requests.length).toBeGreaterThan(asked), { timeout: 15_000 })
  return JSON.stringify(model.requests.at(-1)?.body)
}

describe('people through the server', () => {
  it('recalls a group fact in the live room only once the ids are linked, and forgets it when erased', {
    timeout: 90_000,
  }, async () => {
    await startWithConnectors()
    await sayInGroup(fact)
    await vi.waitFor(async () => expect((await memoriesOf(qqPerson)).length).toBe(1), { timeout: 15_000 })
    expect((await memoriesOf(qqPerson))[0]?.text).toContain(fact)

    // Another person on another source: not linked, so not known there.
    expect(await sayInRoom('what is my favourite fruit?')).not.toContain('durian')
    await vi.waitFor(async () => expect((await memoriesOf(roomPerson)).length).toBe(1), { timeout: 15_000 })

    const linked = await call('POST', `${personPath(qqPerson)}/links`, { ids: [roomPerson] })
    expect(linked).toEqual({ status: 200, body: { id: qqPerson, links: [roomPerson] } })
    expect(await sayInRoom('tell me my favourite fruit')).toContain('durian')

    const listed = await call('GET', '/api/people')
    const byId = new Map(listed.body.people.map((person: { id: string }) => [person.id, person]))
    expect(byId.get(qqPerson)).toMatchObject({ names: ['Ming'], links: [roomPerson], memories: 1 })
    expect(byId.get(roomPerson)).toMatchObject({ names: ['Viewer'], links: [qqPerson] })
    expect(Date.parse((byId.get(qqPerson) as { last_seen: string }).last_seen)).not.toBeNaN()

    const exported = await call('GET', `${personPath(qqPerson)}/export`)
    const memories = await call('GET', `${personPath(qqPerson)}/memories`)
    expect(exported.body.memories).toEqual(memories.body.memories)
    expect(exported.body).toMatchObject({ id: qqPerson, links: [roomPerson] })

    // Unlinking splits them again; neither loses a fact.
    const unlinked = await call('DELETE', `${personPath(qqPerson)}/links/${encodeURIComponent(roomPerson)}`)
    expect(unlinked).toEqual({ status: 200, body: { id: qqPerson, links: [] } })
    expect(await memoriesOf(qqPerson)).toEqual(memories.body.memories)
    expect(await sayInRoom('which fruit do I like best')).not.toContain('durian')
    await call('POST', `${personPath(qqPerson)}/links`, { ids: [roomPerson] })

    const erased = await call('DELETE', `${personPath(qqPerson)}/memories?history=true`)
    expect(erased.status).toBe(200)
    // The fact, and the person's words in the group's stored history.
    expect(erased.body.removed).toBe(2)
    // Audited: who and how much, never what.
    const audit = server!.logLines.filter((line) => line.includes('person_erased'))
    expect(audit).toHaveLength(1)
    expect(audit[0]).toContain(qqPerson)
    expect(audit[0]).not.toContain('durian')
    expect(await call('GET', `${personPath(qqPerson)}/memories`)).toMatchObject({ status: 404 })
    const history = await call('GET', `/api/sessions/${encodeURIComponent('onebot:qq:group:123')}/messages`)
    const contents = history.body.messages.map((message: { content: string }) => message.content)
    expect(contents).toContain('[erased]')
    expect(JSON.stringify(contents)).not.toContain('durian')

    expect(await sayInRoom('do you remember my favourite fruit')).not.toContain('durian')
    expect(await sayInGroup('what fruit did I say I like')).not.toContain('durian')
  })

  it('corrects and deletes one memory of a person, and refuses bad and unknown ids', {
    timeout: 60_000,
  }, async () => {
    await startWithConnectors()
    await sayInGroup(fact)
    await vi.waitFor(async () => expect((await memoriesOf(qqPerson)).length).toBe(1), { timeout: 15_000 })
    const [memory] = (await call('GET', `${personPath(qqPerson)}/memories`)).body.memories
    expect(memory).toMatchObject({ source_turn: expect.any(String) })

    const patched = await call('PATCH', `${personPath(qqPerson)}/memories/${memory.id}`, {
      text: 'Ming likes mangoes',
    })
    expect(patched).toMatchObject({ status: 200, body: { id: memory.id, text: 'Ming likes mangoes' } })
    // A memory is reached only through the person it belongs to.
    const foreign = await call('DELETE', `${personPath(roomPerson)}/memories/${memory.id}`)
    expect(foreign.status).toBe(404)
    expect(await call('DELETE', `${personPath(qqPerson)}/memories/${memory.id}`)).toEqual({
      status: 200,
      body: { deleted: true },
    })

    const bad = await call('GET', `${personPath('qq:42')}/memories`)
    expect(bad.status).toBe(400)
    expect(bad.body.error.message).toMatch(/must start with one of onebot:/)
    const badLink = await call('POST', `${personPath(qqPerson)}/links`, { ids: ['onebot:QQ:1'] })
    expect(badLink.status).toBe(400)
    expect(badLink.body.error.message).toContain('ids[0]')
    expect((await call('GET', `${personPath('speaker:nobody')}/memories`)).status).toBe(404)
    expect((await call('GET', `${personPath('speaker:nobody')}/export`)).status).toBe(404)
    expect((await call('DELETE', `${personPath('speaker:nobody')}/memories`)).status).toBe(404)
    expect((await call('DELETE', `${personPath('speaker:a/b')}/memories?history=maybe`)).status).toBe(400)
    expect(
      (await call('DELETE', `${personPath(qqPerson)}/links/${encodeURIComponent(roomPerson)}`)).status,
    ).toBe(404)
  })

  it('keeps a group fact in the group with per_person off, and erases it there all the same', {
    timeout: 60_000,
  }, async () => {
    const running = await startWithConnectors(false)
    await sayInGroup(fact)
    await vi.waitFor(
      async () => {
        const listed = await fetch(`${running.url}/api/memory`).then((response) => response.json())
        expect(listed.memories).toHaveLength(1)
      },
      { timeout: 15_000 },
    )
    await call('POST', `${personPath(qqPerson)}/links`, { ids: [roomPerson] })
    expect(await sayInRoom('what is my favourite fruit?')).not.toContain('durian')
    expect(await sayInGroup('what is my favourite fruit?')).toContain('durian')
    const linesOfMing = async () => {
      const listed = await fetch(`${running.url}/api/memory`).then((response) => response.json())
      return listed.memories.filter(
        (memory: { metadata: { person?: string } }) => memory.metadata.person === qqPerson,
      )
    }
    await vi.waitFor(async () => expect(await linesOfMing()).toHaveLength(2), { timeout: 15_000 })

    const erased = await call('DELETE', `${personPath(qqPerson)}/memories`)
    expect(erased).toEqual({ status: 200, body: { removed: 2 } })
    expect(await linesOfMing()).toEqual([])
    const left = await fetch(`${running.url}/api/memory`).then((response) => response.json())
    expect(JSON.stringify(left.memories)).not.toContain('durian')
  })
})
