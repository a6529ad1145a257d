/**
 * Inner thought (`character.thoughts`) through the engine: the model is told the form its thought
 * takes in its reply format; the thought goes out as `llm_thought` before the emotion and the first
 * sentence, never in a chunk, a sentence or `llm_done.text`; it is stored with the reply and never
 * sent back to the model as the reply's words. A thought followed by `[silence]` is a silent turn.
 */
import { afterEach, describe, expect, it } from 'vitest'
import type { CharpipeConfigInput } from '../../src/config/schema.js'
import { createCharpipe } from '../../src/engine/index.js'
import type { Charpipe } from '../../src/engine/types.js'
import type { CharpipeEvent } from '../../src/shared/events.js'
import { messageText } from '../../src/shared/messages.js'
import { createScriptedProvider } from '../../src/testing/create-scripted-provider.js'
import { makeConfig } from '../../src/testing/create-turn-harness.js'

let charpipe: Charpipe | undefined
afterEach(async () => {
  await charpipe?.close()
  charpipe = undefined
})

const thought = '他又来了，有点开心'

/** Two inputs; the first reply is played in the given chunks, the second is plain. */
async function answer(chunks: string[], config: CharpipeConfigInput) {
  const provider = createScriptedProvider([{ chunks }, { chunks: ['{"emotion":"平静","text":"嗯。"}'] }])
  charpipe = await createCharpipe(makeConfig(config), { provider })
  const events: CharpipeEvent[] = []
  await charpipe.run({ session: 's', text: '你好' }, { onEvent: (event) => events.push(event) })
  const history = await charpipe.sessions.history({ session: 's' })
  await charpipe.run({ session: 's', text: '再见' }, { onEvent: () => {} })
  return { events, history, first: provider.requests[0]!, second: provider.requests[1]! }
}

/** Everything the turn sent that speaks or shows the reply. */
function spokenText(events: readonly CharpipeEvent[]): string {
  return events
    .map((event) =>
      event.type === 'llm_chunk' || event.type === 'llm_sentence' || event.type === 'llm_done'
        ? event.text
        : '',
    )
    .join('|')
}

const typeOrder = (events: readonly CharpipeEvent[]) =>
  events.map((event) => event.type).filter((type) => type !== 'llm_chunk')

describe('inner thought through the engine', () => {
  for (const [format, chunks] of [
    ['json', ['{"thought":"他又来', '了，有点开心","emo', 'tion":"开心","text":"你好呀。"}']],
    ['auto', ['<thou', 'ght>他又来了，', '有点开心</tho', 'ught>\n{"emotion":"开心","text":"你好呀。"}']],
    ['prefix', ['<thought>他又来了，有点开心</', 'thought>\n{"emotion":"开心"}\n你好', '呀。']],
    ['plain', [' <thought>他又来了，有点', '开心</thought>', '\n你好呀。']],
  ] as const) {
    it(`${format}: the thought is llm_thought, stored with the reply, never spoken or sent back`, async () => {
      const { events, history, first, second } = await answer([...chunks], {
        character: { reply_format: format, thoughts: true },
      })
      const system = messageText(first.messages[0]!)
      expect(system).toMatch(format === 'json' || format === 'auto' ? /"thought"/ : /<thought>/)
      const thoughts = events.filter((event) => event.type === 'llm_thought')
      expect(thoughts).toEqual([
        expect.objectContaining({ type: 'llm_thought', session: 's', text: thought }),
      ])
      expect(spokenText(events)).not.toContain('开心</')
      expect(spokenText(events)).not.toContain('有点')
      expect(events.at(-1)).toMatchObject({ type: 'llm_done', text: '你好呀。' })
      // The thought first; the emotion still before the first sentence.
      const order = typeOrder(events)
      expect(order.indexOf('llm_thought')).toBeLessThan(order.indexOf('llm_sentence'))
      if (format !== 'plain') expect(order.indexOf('llm_emotion')).toBeLessThan(order.indexOf('llm_sentence'))
      expect(history.at(-1)).toMatchObject({ role: 'assistant', content: '你好呀。', thought })
      // The next turn shows the model its reply, not its thought.
      const replayed = second.messages.filter((message) => message.role === 'assistant').map(messageText)
      expect(replayed.join('\n')).toContain('你好呀。')
      expect(replayed.join('\n')).not.toContain('有点开心')
    })
  }

  it('a thought followed by [silence] is a silent turn, stored with its thought', async () => {
    const { events, history, first } = await answer(
      ['{"thought":"不想理', '他","emotion":"平静","text":"[sil', 'ence]"}'],
      {
        character: { reply_format: 'json', thoughts: true },
        conversation: { silence: { triggers: ['input'] } },
      },
    )
    // The silence note keeps the thought: the model is not told to drop it to stay silent.
    const note = messageText(first.messages.filter((message) => message.role === 'user').at(-1)!)
    expect(note).toMatch(/"thought".*\[silence\]/)
    expect(events.filter((event) => event.type === 'llm_thought')).toHaveLength(1)
    expect(events.some((event) => event.type === 'llm_chunk' || event.type === 'llm_sentence')).toBe(false)
    expect(events.at(-1)).toMatchObject({ type: 'llm_done', text: '', silent: true })
    expect(history.at(-1)).toMatchObject({ role: 'assistant', content: '[silence]', thought: '不想理他' })
  })

  it('a resend of the input is answered from the store with its thought, and no model call', async () => {
    const provider = createScriptedProvider([
      { chunks: ['{"thought":"想一想","emotion":"开心","text":"好。"}'] },
    ])
    charpipe = await createCharpipe(makeConfig({ character: { reply_format: 'json', thoughts: true } }), {
      provider,
    })
    const runs: CharpipeEvent[][] = []
    for (const _ of [1, 2]) {
      const events: CharpipeEvent[] = []
      await charpipe.run(
        { session: 's', text: '你好', id: 'once' },
        { onEvent: (event) => events.push(event) },
      )
      runs.push(events)
    }
    expect(provider.requests).toHaveLength(1)
    for (const events of runs) {
      expect(events.filter((event) => event.type === 'llm_thought').map((event) => event.text)).toEqual([
        '想一想',
      ])
      expect(events.at(-1)).toMatchObject({ type: 'llm_done', text: '好。' })
    }
  })

  it('the event bus offers llm_thought to its listeners', async () => {
    const provider = createScriptedProvider([{ chunks: ['<thought>想', '一想</thought>好。'] }])
    charpipe = await createCharpipe(makeConfig({ character: { reply_format: 'plain', thoughts: true } }), {
      provider,
    })
    const heard: string[] = []
    charpipe.on('llm_thought', (event) => heard.push(event.text))
    await charpipe.run({ session: 's', text: '你好' }, { onEvent: () => {} })
    expect(heard).toEqual(['想一想'])
  })

  it('off by default: no thought is asked for or sent, and a JSON thought is not said', async () => {
    const { events, history, first } = await answer(['{"thought":"秘密","emotion":"开心","text":"好。"}'], {
      character: { reply_format: 'json' },
    })
    expect(messageText(first.messages[0]!)).not.toMatch(/thought/)
    expect(events.some((event) => event.type === 'llm_thought')).toBe(false)
    expect(spokenText(events)).not.toContain('秘密')
    expect(history.at(-1)).not.toHaveProperty('thought')
  })
})
