import { describe, expect, it } from 'vitest'
import { createReplyParser } from '../../reply/create-reply-parser.js'
import type { ReplyParserOptions } from '../../reply/types.js'
import type { TurnEvent } from '../turn-event.js'
import { createReplyStages, createTurnEventStage } from './reply-stages.js'
import type { StepEvent } from './run-model-steps.js'

function runStages(steps: StepEvent[], parserOptions: ReplyParserOptions = { replyFormat: 'plain' }) {
  const events: TurnEvent[] = []
  let parsers = 0
  const stages = createReplyStages({
    parts: {
      createReplyParser: (options) => {
        parsers++
        return createReplyParser(options)
      },
    },
    parserOptions,
    defaultEmotion: '平静',
    emit: (event) => events.push(event),
  })
  for (const step of steps) stages.push(step)
  return { events, stages, parsers: () => parsers }
}

describe('createReplyStages', () => {
  it('a turn is silent when its last step is [silence] and no earlier step said anything', () => {
    const silence: ReplyParserOptions = { replyFormat: 'plain', silence: true }
    const toolThenSilence = runStages(
      [
        { type: 'step-end' },
        { type: 'tool-call', id: 'c1', name: 'clock', arguments: {} },
        { type: 'tool-result', id: 'c1', result: '12:00' },
        { type: 'text-delta', text: '[sile' },
        { type: 'text-delta', text: 'nce]' },
        { type: 'step-end' },
      ],
      silence,
    )
    expect(toolThenSilence.stages.silent).toBe(true)
    expect(toolThenSilence.events.map((event) => event.type)).toEqual(['tool_call', 'tool_result'])
    const saidThenSilence = runStages(
      [
        { type: 'text-delta', text: '先查一下' },
        { type: 'step-end' },
        { type: 'text-delta', text: '[silence]' },
        { type: 'step-end' },
      ],
      silence,
    )
    expect(saidThenSilence.stages.silent).toBe(false)
    expect(saidThenSilence.stages.displayText).toBe('先查一下')
  })

  it('numbers sentences across model steps, with a fresh parser per step', () => {
    const { events, stages, parsers } = runStages([
      { type: 'text-delta', text: '先查一下' },
      { type: 'step-end' },
      { type: 'tool-call', id: 'c1', name: 'clock', arguments: {} },
      { type: 'tool-result', id: 'c1', result: '12:00' },
      { type: 'text-delta', text: '现在中午。' },
      { type: 'text-delta', text: '吃饭吧。' },
      { type: 'step-end' },
    ])
    expect(parsers()).toBe(2)
    expect(events.filter((event) => event.type === 'llm_sentence')).toEqual([
      { type: 'llm_sentence', index: 0, text: '先查一下', emotion: '平静' },
      { type: 'llm_sentence', index: 1, text: '现在中午。', emotion: '平静' },
      { type: 'llm_sentence', index: 2, text: '吃饭吧。', emotion: '平静' },
    ])
    // Tool events take their public names at this stage, in the order they happened.
    // (a sentence ending a chunk goes at once: `sentence.early_release`).
    expect(events.map((event) => event.type)).toEqual([
      'llm_chunk',
      'llm_emotion',
      'llm_sentence',
      'tool_call',
      'tool_result',
      'llm_chunk',
      'llm_sentence',
      'llm_chunk',
      'llm_sentence',
    ])
    expect(stages.displayText).toBe('先查一下现在中午。吃饭吧。')
    expect(stages.sentences).toEqual(['先查一下', '现在中午。', '吃饭吧。'])
  })

  it('sums usage over the model calls and keeps the last answer', () => {
    const { events, stages } = runStages([
      { type: 'answer', answer: { provider: 'a', model: 'm1' } },
      { type: 'usage', usage: { inputTokens: 10, outputTokens: 2 } },
      { type: 'step-end' },
      { type: 'answer', answer: { provider: 'b', model: 'm2' } },
      { type: 'usage', usage: { inputTokens: 5, outputTokens: 1, cachedInputTokens: 3 } },
    ])
    expect(events).toEqual([])
    expect(stages.usage).toEqual({ prompt_tokens: 15, completion_tokens: 3, cached_tokens: 3 })
    expect(stages.answer).toEqual({ provider: 'b', model: 'm2' })
  })

  it("takes the emotion from the reply's envelope, and the default until one is given", () => {
    const { events, stages } = runStages(
      [{ type: 'text-delta', text: '{"emotion":"开心","text":"好呀。"}' }, { type: 'step-end' }],
      { replyFormat: 'json', emotions: ['开心', '平静'] },
    )
    expect(events.filter((event) => event.type === 'llm_emotion')).toEqual([
      { type: 'llm_emotion', emotion: '开心' },
    ])
    expect(stages.emotion).toBe('开心')
    expect(runStages([]).stages.emotion).toBe('平静')
  })
})

describe('createTurnEventStage', () => {
  it('sends an emotion only when it changes, and drops empty display deltas', () => {
    const stage = createTurnEventStage('平静')
    expect(stage.convert({ type: 'emotion', emotion: '开心' })).toEqual({
      type: 'llm_emotion',
      emotion: '开心',
    })
    expect(stage.convert({ type: 'emotion', emotion: '开心' })).toBeUndefined()
    expect(stage.convert({ type: 'display-delta', text: '' })).toBeUndefined()
    expect(stage.convert({ type: 'done', text: 'x', emotion: '难过' })).toBeUndefined()
    expect(stage.emotion).toBe('难过')
  })
})
