/**
 * A OneBot implementation reports the bot's own messages back (`post_type: "message_sent"`, or a
 * `message` whose `user_id` is the bot's `self_id`). Were one to start a turn, the character would
 * answer itself for ever: none may, in a group or a private chat, while another user's line does.
 */
import { afterEach, describe, expect, it, vi } from 'vitest'
import { onebotConnectorSchema } from '../../src/config/schema.js'
import { createOnebotConnector } from '../../src/connectors/onebot/create-onebot-connector.js'
import { createLogger } from '../../src/shared/logger.js'
import { createFakeConnectorHost } from '../connectors/fake-connector-host.js'
import { startFakeOnebot } from '../connectors/fake-onebot-implementation.js'

const cleanups: (() => Promise<void>)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

describe("OneBot's echoes of the bot's own messages", () => {
  it('never start a turn; a line of someone else does', async () => {
    const fake = await startFakeOnebot({ accessToken: 'token' })
    cleanups.push(() => fake.close())
    const host = createFakeConnectorHost()
    const connector = createOnebotConnector({
      config: onebotConnectorSchema.parse({
        name: 'qq',
        url: fake.url,
        access_token: 'token',
        groups: [123],
        private: true,
      }),
      host,
      characterName: '小雪',
      logger: createLogger({ level: 'silent' }),
      backoff: { initialMs: 20, maxMs: 100 },
    })
    cleanups.push(() => connector.close())
    await vi.waitFor(() => expect(fake.connectedCount()).toBe(1))
    const base = {
      time: 1,
      self_id: fake.selfId,
      font: 0,
      message: [{ type: 'text', data: { text: '我说的话' } }],
    }
    let id = 9000
    for (const frame of [
      { ...base, post_type: 'message_sent', message_type: 'group', group_id: 123, user_id: fake.selfId },
      { ...base, post_type: 'message_sent', message_type: 'private', user_id: 42, target_id: 42 },
      { ...base, post_type: 'message', message_type: 'private', user_id: fake.selfId },
    ]) {
      fake.sendRaw(JSON.stringify({ ...frame, message_id: ++id, sender: { user_id: frame.user_id } }))
    }
    fake.sendGroupMessage({ groupId: 123, userId: fake.selfId, message: '我说的话' })
    fake.sendGroupMessage({ groupId: 123, userId: 42, message: '别人说的话' })
    fake.sendPrivateMessage({ userId: 42, text: '私聊' })
    await vi.waitFor(() => expect(host.runCalls).toHaveLength(1))
    await vi.waitFor(() => expect(host.audienceCalls).toHaveLength(1))
    expect(host.audienceCalls[0]?.messages[0]?.text).toBe('别人说的话')
    expect(host.runCalls[0]?.text).toBe('私聊')
  })
})
