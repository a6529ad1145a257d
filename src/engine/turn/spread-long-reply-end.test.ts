/**
 * The end of a long reply is spread over turns of the event loop: its history row is written in
 * one, its `llm_done` (the whole text again) sent in a later one, so the two stalls do not add up;
 * a reply cut short writes in a later turn than the interrupt that cut it.
 * A short reply closes in the same stretch as its write, as before. Any reply's events reach the
 * loop's check phase (where the server's sockets send what they hold) before its history row is
 * written, so a reply that came in one read does not wait for its write to be seen; a `say` turn's
 * words too (all there at once, every frame of it waited for the write before).
 */
import { setImmediate } from 'node:timers'
import { describe, expect, it } from 'vitest'
import { createInMemoryHistoryStore } from '../../memory/index.js'
import type { HistoryStore } from '../../memory/types.js'
import type { CharpipeEvent } from '../../shared/events.js'
import { createScriptedProvider } from '../../testing/create-scripted-provider.js'
import { makeConfig } from '../../testing/create-turn-harness.js'
import { createCharpipe } from '../create-charpipe.js'

/** An in-memory history that notes each write in `order`, and the loop's next turn after it. */
function traceHistoryWrites(order: string[]): HistoryStore {
  const inMemory = createInMemoryHistoryStore()
  return {
    ...inMemory,
    appendTurn: (...args) => {
      order.push('history write')
      setImmediate(() => order.push('loop turned'))
      return inMemory.appendTurn(...args)
    },
  }
}

/**
 * What happened, in order: the history write, the loop turning after it, `llm_done` seen, and the
 * check phase after the reply's first `llm_chunk` was seen.
 */
async function traceReplyEnd(reply: string): Promise<string[]> {
  const order: string[] = []
  const historyStore = traceHistoryWrites(order)
  const provider = createScriptedProvider([{ chunks: [reply] }])
  const charpipe = await createCharpipe(makeConfig({ history: { store: 'memory' } }), {
    provider,
    historyStore,
  })
  try {
    let chunks = 0
    for await (const event of charpipe.generate({ text: '讲个故事吧' })) {
      if (event.type === 'llm_done') order.push(`llm_done ${event.text.length}`)
      if (event.type === 'llm_chunk' && chunks++ === 0)
        setImmediate(() => order.push('check phase after the first chunk'))
    }
    await new Promise((resolve) => setImmediate(resolve))
  } finally {
    await charpipe.close()
  }
  return order
}

describe('the end of a reply', () => {
  it('of 40,000 characters: llm_done goes out in a later turn of the loop than the history write', async () => {
    const reply = '海边的灯塔每天晚上都会亮起来。'.repeat(2_700).slice(0, 40_000)
    expect(await traceReplyEnd(reply)).toEqual([
      'check phase after the first chunk',
      'history write',
      'loop turned',
      'llm_done 40000',
    ])
  })

  it('of 10,000 characters: spread as well (one step of a reply this long can take milliseconds)', async () => {
    const reply = '海边的灯塔每天晚上都会亮起来。'.repeat(700).slice(0, 10_000)
    expect(await traceReplyEnd(reply)).toEqual([
      'check phase after the first chunk',
      'history write',
      'loop turned',
      'llm_done 10000',
    ])
  })

  it('cut short: its history write waits for a turn of the loop after the interrupt that cut it', async () => {
    const order: string[] = []
    const sentence = '海边的灯塔每天晚上都会亮起来。'
    const chunks = Array.from({ length: 100 }, () => sentence.repeat(14))
    const charpipe = await createCharpipe(makeConfig({ history: { store: 'memory' } }), {
      provider: createScriptedProvider([{ chunks, hang: true }]),
      historyStore: traceHistoryWrites(order),
    })
    try {
      const controller = new AbortController()
      let heard = ''
      for await (const event of charpipe.generate({ text: '讲个故事吧' }, { signal: controller.signal })) {
        if (event.type === 'llm_chunk' && !controller.signal.aborted) {
          heard += event.text
          if (heard.length >= 12_000) {
            controller.abort({ heard })
            setImmediate(() => order.push('loop turned after the interrupt'))
          }
        }
        if (event.type === 'llm_done') order.push(`llm_done, interrupted: ${event.interrupted}`)
      }
      await new Promise((resolve) => setImmediate(resolve))
    } finally {
      await charpipe.close()
    }
    expect(order).toEqual([
      'loop turned after the interrupt',
      'history write',
      'loop turned',
      'llm_done, interrupted: true',
    ])
  })

  it('of a sentence: its chunk reaches the check phase before the write, llm_done follows the write at once', async () => {
    expect(await traceReplyEnd('好的。')).toEqual([
      'check phase after the first chunk',
      'history write',
      'llm_done 3',
      'loop turned',
    ])
  })
})

describe('a say turn', () => {
  it('lets its first llm_chunk reach the check phase before its history write; llm_done follows the write', async () => {
    const order: string[] = []
    const charpipe = await createCharpipe(
      makeConfig({ history: { store: 'memory' }, character: { reply_format: 'plain' } }),
      { provider: createScriptedProvider([]), historyStore: traceHistoryWrites(order) },
    )
    try {
      let end!: () => void
      const ended = new Promise<void>((resolve) => {
        end = resolve
      })
      let chunks = 0
      charpipe.sessions.follow({
        session: 'room',
        onEvent: (event) => {
          const { type } = event as CharpipeEvent
          if (type === 'llm_chunk' && chunks++ === 0)
            setImmediate(() => order.push('check phase after the first chunk'))
          if (type === 'llm_done') {
            order.push('llm_done')
            end()
          }
        },
      })
      charpipe.sessions.say({ session: 'room', text: '大家好，欢迎来到直播间！' })
      await ended
      await new Promise((resolve) => setImmediate(resolve))
      expect(order).toEqual(['check phase after the first chunk', 'history write', 'llm_done', 'loop turned'])
    } finally {
      await charpipe.close()
    }
  })
})
