import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { readTurnOutcome } from './apply-chat-frame.js'
import { convertStoredMessages, isUnansweredTurn } from './convert-stored-messages.js'

describe('convertStoredMessages', () => {
  it('pairs questions and replies by turn id, keeping emotion and interruption', () => {
    const turns = convertStoredMessages([
      { role: 'user', content: '你好', turn: 't1', emotion: 'happy' },
      { role: 'assistant', content: '你好呀！', turn: 't1', emotion: '开心' },
      { role: 'user', content: '讲个故事', turn: 't2' },
      { role: 'assistant', content: '从前', turn: 't2', emotion: '平静', interrupted: true },
    ])
    expect(turns).toHaveLength(2)
    expect(turns[0]).toMatchObject({
      id: 't1',
      userText: '你好',
      userEmotion: 'happy',
      subtitles: '你好呀！',
      emotion: '开心',
      status: 'done',
      restored: true,
    })
    expect(turns[0]?.sentences).toEqual([{ index: 0, text: '你好呀！', emotion: '开心' }])
    expect(readTurnOutcome(turns[1]!)).toBe('interrupted')
  })

  it('shows a question without a reply as unanswered, and a lone reply as its own turn', () => {
    const turns = convertStoredMessages([
      { role: 'assistant', content: '欢迎！', turn: 'greeting' },
      { role: 'user', content: '在吗', turn: 't1' },
      { role: 'user', content: '在吗？', turn: 't2' },
      { role: 'assistant', content: '在的', turn: 't2' },
    ])
    expect(turns.map((turn) => [turn.userText, turn.subtitles])).toEqual([
      ['', '欢迎！'],
      ['在吗', ''],
      ['在吗？', '在的'],
    ])
    expect(turns.map(isUnansweredTurn)).toEqual([false, true, false])
  })

  it("shows an idle turn's instruction as an event opening its turn, not as the user's words", () => {
    const turns = convertStoredMessages([
      { role: 'event', content: '说说今天的天气', turn: 't1' },
      { role: 'assistant', content: '今天天气真好。', emotion: '开心', turn: 't1' },
    ])
    expect(turns).toHaveLength(1)
    expect(turns[0]).toMatchObject({ eventText: '说说今天的天气', userText: '', subtitles: '今天天气真好。' })
  })

  it('tells an event given to the session from an idle turn by its turn id', () => {
    const turns = convertStoredMessages([
      { role: 'event', content: '[事件] 下雨了', turn: 'event-1' },
      { role: 'event', content: '说说今天的天气', turn: 't2' },
    ])
    expect(turns.map((turn) => [turn.eventText, turn.toldEvent === true])).toEqual([
      ['下雨了', true],
      ['说说今天的天气', false],
    ])
  })

  it('shows a question the store marked failed as a failed turn', () => {
    const turns = convertStoredMessages([
      { role: 'user', content: '在吗', turn: 't1', failed: true },
      { role: 'user', content: '你好', turn: 't2' },
      { role: 'assistant', content: '你好呀', turn: 't2' },
    ])
    expect(turns.map(readTurnOutcome)).toEqual(['failed', 'done'])
  })

  it('pairs by order when messages carry no turn id', () => {
    const turns = convertStoredMessages([
      { role: 'user', content: [{ type: 'text', text: 'a' }] },
      { role: 'assistant', content: 'b' },
    ])
    expect(turns.map((turn) => [turn.userText, turn.subtitles])).toEqual([['a', 'b']])
  })

  it('shows a reply stored as [silence] as a silent turn, never as words, and keeps the thought apart', () => {
    const turns = convertStoredMessages([
      { role: 'user', content: '嗯', turn: 't1' },
      { role: 'assistant', content: ' [silence] ', turn: 't1', emotion: '平静', thought: '不必回答。' },
      { role: 'user', content: '你好', turn: 't2' },
      { role: 'assistant', content: '你好呀', turn: 't2', thought: '是老朋友。' },
    ])
    expect(turns[0]).toMatchObject({ silent: true, subtitles: '', sentences: [], thought: '不必回答。' })
    expect(isUnansweredTurn(turns[0]!)).toBe(false)
    expect(turns[1]).toMatchObject({ subtitles: '你好呀', thought: '是老朋友。' })
    expect(turns[1]?.silent).toBeUndefined()
  })

  it("shows an owner's event without a reply as a note of its own", () => {
    const turns = convertStoredMessages([
      { role: 'event', content: '[Event] 门铃响了', turn: 'event-e1' },
      { role: 'user', content: '谁？', turn: 't2' },
      { role: 'assistant', content: '快递。', turn: 't2' },
    ])
    expect(turns.map((turn) => [turn.eventText, turn.toldEvent, turn.userText, turn.subtitles])).toEqual([
      ['门铃响了', true, '', ''],
      [undefined, undefined, '谁？', '快递。'],
    ])
    expect(isUnansweredTurn(turns[0]!)).toBe(false)
  })

  it('reads any stored list: a [silence] reply is never words, a thought is kept only as text', () => {
    const message = fc.record(
      {
        role: fc.constantFrom('user', 'assistant', 'event', 'system'),
        content: fc.oneof(fc.string(), fc.constant('[silence]'), fc.constant(' \n[silence]\t')),
        turn: fc.constantFrom('t1', 't2', 't3'),
        thought: fc.oneof(fc.string(), fc.integer(), fc.constant(null), fc.object()),
      },
      { requiredKeys: ['role', 'content'] },
    )
    fc.assert(
      fc.property(fc.array(message, { maxLength: 12 }), (messages) => {
        const turns = convertStoredMessages(messages)
        for (const turn of turns) {
          if (turn.silent) expect([turn.subtitles, turn.sentences.length]).toEqual(['', 0])
          expect(turn.subtitles.trim()).not.toBe('[silence]')
          if (turn.thought !== undefined) expect(typeof turn.thought).toBe('string')
        }
        const silentReplies = messages.filter(
          (each) => each.role === 'assistant' && String(each.content).trim() === '[silence]',
        )
        expect(turns.filter((turn) => turn.silent)).toHaveLength(silentReplies.length)
      }),
    )
  })
})
