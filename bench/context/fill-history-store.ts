/**
 * Fills a history store with `messages` stored messages (user/assistant pairs) for one session,
 * with Chinese text of a realistic length.
 */
import type { ConversationScope, HistoryStore } from '../../src/memory/types.js'

const userLines = [
  '今天天气怎么样？',
  '我刚下班，好累啊。',
  '给我讲个笑话吧',
  '你还记得我喜欢什么吗？',
  '周末有什么推荐的活动？',
]
const replyLines = [
  '今天晴转多云，气温二十度左右，很适合出门散步哦～',
  '辛苦啦！先喝杯热茶休息一下，想聊聊今天发生了什么吗？',
  '有一天小明去面试，面试官问他最大的缺点是什么，他说太诚实了。',
  '当然记得，你喜欢猫，还喜欢在雨天听爵士乐。',
  '可以去美术馆看展，或者约朋友去郊外骑行，天气好的话很舒服。',
]

export async function fillHistoryStore(
  store: HistoryStore,
  scope: ConversationScope,
  messages: number,
): Promise<void> {
  const start = Date.now() - messages * 60_000
  for (let index = 0; index < messages / 2; index++) {
    await store.appendTurn(scope, {
      turn: `turn-${index}`,
      user: {
        role: 'user',
        content: userLines[index % userLines.length]!,
        createdAt: start + index * 120_000,
      },
      assistant: {
        role: 'assistant',
        content: replyLines[index % replyLines.length]!,
        emotion: '开心',
        createdAt: start + index * 120_000 + 5_000,
      },
    })
  }
}
