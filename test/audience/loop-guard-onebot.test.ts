/**
 * A QQ group through the running server, its OneBot connector and the mock model server. Two bots:
 * another bot answers each of the character's messages in the group at once; the loop guard ends
 * the exchange after `loopGuard.quickRepliesInRow + 1` replies to it, the bot's next line is not
 * answered, and a person's line after it is. Silence: a reply of `[silence]` sends nothing.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import { loopGuard } from '../../src/audience/create-speaker-guard.js'
import { type MockModelServer, startMockModelServer } from '../../src/testing/index.js'
import { type FakeOnebot, startFakeOnebot } from '../connectors/fake-onebot-implementation.js'
import { startServerOverModel, type TestServer } from '../server/start-test-server.js'

let model: MockModelServer
/** The model's next replies, in order; then `好的。`. */
const replies: string[] = []
let server: TestServer | undefined
let fake: FakeOnebot | undefined

beforeAll(async () => {
  model = await startMockModelServer({ respond: () => ({ text: replies.shift() ?? '好的。' }) })
})
afterAll(async () => {
  await model.close()
})
afterEach(async () => {
  await server?.stop()
  server = undefined
  await fake?.close()
  fake = undefined
  replies.splice(0)
})

const otherBot = 20002
const person = 42

/** Whom a group message the character sent answered (its `at`). */
const answeredUser = (call: { params: Record<string, unknown> }) =>
  (call.params.message as { type: string; data: { qq?: string } }[]).find((segment) => segment.type === 'at')
    ?.data.qq

async function startGroup() {
  const group = await startFakeOnebot({ accessToken: 'secret' })
  fake = group
  server = await startServerOverModel(model.url, [
    'character:',
    '  name: 小雪',
    'audience:',
    '  reply: every',
    '  min_gap_ms: 0',
    'connectors:',
    '  onebot:',
    '    - name: qq',
    `      url: ${group.url}`,
    '      access_token: secret',
    '      groups: [123]',
  ])
  await vi.waitFor(() => expect(group.connectedCount()).toBe(1), { timeout: 15_000 })
  return {
    sent: () => group.calls.filter((call) => call.action === 'send_group_msg'),
    say: (userId: number, text: string) =>
      group.sendGroupMessage({ groupId: 123, userId, message: [{ type: 'text', data: { text } }] }),
  }
}

describe('a QQ group', () => {
  it('a reply of [silence] sends nothing to the group; the next reply is sent', async () => {
    replies.push(' [silence]')
    const { sent, say } = await startGroup()
    say(person, '嗯')
    await vi.waitFor(() => expect(model.requests).toHaveLength(1), { timeout: 15_000 })
    say(person, '你在吗？')
    await vi.waitFor(() => expect(sent()).toHaveLength(1), { timeout: 15_000 })
    expect(model.requests).toHaveLength(2)
    expect(JSON.stringify(sent()[0]?.params.message)).toContain('好的。')
  })

  it('two bots: the exchange stops within the loop guard bound; a person is still answered', async () => {
    const { sent, say } = await startGroup()
    // The other bot speaks, and answers each reply of the character the moment it arrives.
    say(otherBot, '你好，我也是机器人')
    for (let reply = 1; reply <= loopGuard.quickRepliesInRow + 1; reply++) {
      await vi.waitFor(() => expect(sent()).toHaveLength(reply), { timeout: 15_000 })
      say(otherBot, `第${reply}次回答你`)
    }
    say(person, '大家好')
    await vi.waitFor(() => expect(sent().map(answeredUser)).toContain(String(person)), { timeout: 15_000 })
    // Its last line came after the guard stopped it: not answered (with `reply: every` it would be
    // answered first, and the exchange would go on).
    expect(sent().map(answeredUser)).toEqual([
      ...Array.from({ length: loopGuard.quickRepliesInRow + 1 }, () => String(otherBot)),
      String(person),
    ])
  })
})
