/**
 * The mock model server of the turn-cost bench's paced rows, in its own process so that the bench
 * process's CPU is the engine's alone (as the server bench measures it). Every request gets the
 * `MockReply` the parent sent last; the parent is told the URL once listening.
 */
import { type MockReply, startMockModelServer } from '../../src/testing/index.js'

let reply: MockReply = {}
const mock = await startMockModelServer({ respond: () => reply })
process.on('message', (message: { type: string; reply?: MockReply }) => {
  if (message.type === 'reply' && message.reply) {
    reply = message.reply
    mock.reset()
    process.send!({ type: 'ready' })
  } else if (message.type === 'close') {
    void mock.close().then(() => process.exit(0))
  }
})
// A parent that dies (a bench stopped by a timeout) takes its mock with it.
process.on('disconnect', () => process.exit(0))
process.send!({ type: 'listening', url: mock.url })
