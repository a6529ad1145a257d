/**
 * Inner thought (`character.thoughts`) on a connector's turn, in the running server over the mock
 * model server and a fake OneBot: the group gets the line only, never the thought; a WebSocket
 * client following the group's session gets the turn's `llm_thought`, and no chunk of it.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import { type MockModelServer, startMockModelServer } from '../../src/testing/index.js'
import { startServerOverModel, type TestServer } from '../server/start-test-server.js'
import { openTestSocket, type TestSocket } from '../server/websocket-client.js'
import { type FakeOnebot, startFakeOnebot } from './fake-onebot-implementation.js'

const thought = '群里有人找我，先打个招呼'
const line = '好的，我在。'

let model: MockModelServer
let server: TestServer | undefined
let onebot: FakeOnebot | undefined
let follower: TestSocket | undefined

beforeAll(async () => {
  model = await startMockModelServer({
    respond: () => ({ text: JSON.stringify({ thought, emotion: '开心', text: line }), chunkSize: 2 }),
  })
})
afterAll(async () => {
  await model.close()
})
afterEach(async () => {
  await follower?.close()
  await server?.stop()
  await onebot?.close()
  follower = undefined
  server = undefined
  onebot = undefined
  model.reset()
})

const textOf = (call: { params: Record<string, unknown> }) =>
  (call.params.message as { type: string; data: { text?: string } }[])
    .filter((segment) => segment.type === 'text')
    .map((segment) => segment.data.text)
    .join('')

describe('inner thought on a connector turn', () => {
  it('the group gets the line only; a follower of the session gets llm_thought', async () => {
    onebot = await startFakeOnebot({ accessToken: 'forward-secret' })
    const qq = onebot
    server = await startServerOverModel(model.url, [
      'character:',
      '  name: 小雪',
      '  reply_format: json',
      '  thoughts: true',
      'audience:',
      '  reply: every',
      '  min_gap_ms: 0',
      'connectors:',
      '  onebot:',
      '    - name: qq',
      `      url: ${qq.url}`,
      '      access_token: forward-secret',
      '      groups: [123]',
    ])
    const running = server
    await vi.waitFor(async () => {
      const answer = await fetch(`${running.url}/api/connectors`).then((response) => response.json())
      expect(answer.connectors[0]?.state).toBe('ready')
    })
    const session = 'onebot:qq:group:123'
    follower = await openTestSocket(`${running.url}/ws`)
    follower.send({ type: 'open', session })
    await follower.waitFor((frame) => frame.type === 'opened')

    qq.sendGroupMessage({
      groupId: 123,
      userId: 42,
      card: '阿明',
      message: [
        { type: 'at', data: { qq: String(qq.selfId) } },
        { type: 'text', data: { text: ' 你在吗？' } },
      ],
    })
    await vi.waitFor(() => expect(qq.calls).toHaveLength(1), { timeout: 15_000 })
    expect(textOf(qq.calls[0]!)).toBe(` ${line}`)

    const events = await follower.waitForTurn(session)
    expect(events.filter((event) => event.type === 'llm_thought')).toEqual([
      expect.objectContaining({ type: 'llm_thought', session, text: thought, trigger: 'audience' }),
    ])
    const shown = events
      .filter((event) => event.type === 'llm_chunk' || event.type === 'llm_sentence')
      .map((event) => String(event.text))
      .join('')
    expect(shown).toContain('我在')
    expect(shown).not.toContain('打招呼')
    expect(events.at(-1)).toMatchObject({ type: 'llm_done', text: line })
  })
})
